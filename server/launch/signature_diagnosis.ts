/**
 * The Inspector's diagnosis of a signed_request's signature: one home, used by the Inspector
 * (server/admin/inspector.ts) and by the launch log of every refused launch (routes.ts).
 */
import { listApps, organizationAppsBeside } from "../../db/queries/apps.ts";
import type { Deps } from "../deps.ts";
import { SIGNED_REQUEST_FIELD } from "./contract.ts";
import { signatureHints } from "./signature_hint.ts";
import { repairSignedRequest } from "./signed_request.ts";
import { signatureMatches } from "./signature_match.ts";
import { type KeyedApp, signingKeys } from "./signing_keys.ts";

/** The Inspector's verdict on a signed_request's signature, with the likely causes. */
export interface SignatureDiagnosis {
  signature: "valid" | "invalid" | "malformed";
  /** Likely causes of an invalid signature (or the repair a valid one needed), best first. */
  causes: string[];
}

/**
 * Apps of its organization whose keys a refused launch's diagnosis tries, at most. A launch is
 * refused to anyone who can post one (no credentials needed): trying every app's keys made each
 * refusal's work grow with the deployment (115 ms of CPU at 1,152 apps), which a burst from one
 * address turned into a queue in front of every launch.
 */
export const LAUNCH_DIAGNOSIS_APPS = 20;

/** Which other apps' keys a diagnosis tries. */
export type OtherApps = "all" | "organization";

/**
 * The signature's diagnosis, for the Inspector and for the launch log of a refused launch (one
 * home): the causes of signature_hint.ts, and, what only an administrator may learn, whether the
 * key of another app signed it: of any app for the Inspector (an administrator asks), of up to
 * LAUNCH_DIAGNOSIS_APPS apps of its organization for a refused launch (anyone may cause one).
 * `raw` is the value as received.
 */
export async function diagnoseSignature(
  deps: Deps,
  app: KeyedApp & { id: number },
  raw: string,
  otherApps: OtherApps,
): Promise<SignatureDiagnosis> {
  // The launch endpoint's own transport repair ('+' sent as spaces, Base64 wrapped in lines).
  const { value, warning: repaired } = repairSignedRequest(raw);
  const dot = value.indexOf(".");
  if (dot <= 0 || dot === value.length - 1) {
    return {
      signature: "malformed",
      causes: [`A ${SIGNED_REQUEST_FIELD} is <signature>.<encoded_payload>: this value has no '.'`],
    };
  }
  const keys = (await signingKeys(deps, app)).map((k) => k.key);
  if (keys.some((key) => signatureMatches(value, key))) {
    if (!repaired) return { signature: "valid", causes: [] };
    return {
      signature: "valid",
      causes: [
        repaired.repairs.includes("spaces_to_plus")
          ? "'+' characters arrived as spaces: the form body was not percent-encoded. The " +
            "launch endpoint repairs this and launches with a signed_request_repaired warning; " +
            "encode the value (URLSearchParams, encodeURIComponent) or submit a real HTML form."
          : "The Base64 arrived wrapped in lines. The launch endpoint removes the line breaks " +
            "and launches with a signed_request_repaired warning; send it on one line.",
      ],
    };
  }
  const hints = signatureHints(value, keys);
  if (hints[0].code === "wrong_key") {
    const others = otherApps === "all"
      ? await listApps(deps.sql)
      : await organizationAppsBeside(deps.sql, app.id, LAUNCH_DIAGNOSIS_APPS);
    for (const other of others) {
      if (other.id === app.id) continue;
      const otherKeys = (await signingKeys(deps, other)).map((k) => k.key);
      if (otherKeys.some((key) => signatureMatches(value, key))) {
        return {
          signature: "invalid",
          causes: [`It was signed with the key of another app, ${other.appName}.`],
        };
      }
    }
  }
  return { signature: "invalid", causes: hints.map((h) => h.message) };
}
