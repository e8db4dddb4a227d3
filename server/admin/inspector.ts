/**
 * The signed-request inspector: decodes a pasted signed_request for an app, says whether the
 * signature matches and, when it does not, the likely cause it can detect, lists every validation
 * problem and shows the plan the launch would run (the dry run). It writes nothing.
 */
import { repairSignedRequest } from "../launch/signed_request.ts";
import { SIGNED_REQUEST_FIELD } from "../launch/contract.ts";
import { findAppByName, listApps } from "../../db/queries/apps.ts";
import { decodeBase64, encodeBase64 } from "../crypto/base64.ts";
import type { Deps } from "../deps.ts";
import { AppError, type FieldError } from "../http/errors.ts";
import { type LaunchPlan, planLaunch } from "../launch/flow.ts";
import { parseLaunchPayload } from "../launch/payload.ts";
import { hmacBase64, signatureMatches } from "../launch/signed_request.ts";
import { signingKeys } from "../launch/signing_keys.ts";

/** What the inspector found. */
export interface Inspection {
  appName: string;
  signature: "valid" | "invalid" | "malformed";
  /** Likely causes of an invalid signature, most specific first. */
  causes: string[];
  /** The payload segment decoded as text, when it decodes. */
  payloadText: string | null;
  /** The payload as JSON, when it parses. */
  payload: unknown;
  /** Why the payload could not be read, if it could not. */
  decodeError: string | null;
  /** The launch's validation verdict. */
  validation: { message: string; errors: FieldError[] } | null;
  /** The dry run's plan, or its refusal. */
  plan: LaunchPlan | null;
  planError: { status: number; message: string; errors: FieldError[] } | null;
}

function sameBytes(a: string, b: string): boolean {
  const x = decodeBase64(a);
  const y = decodeBase64(b);
  return !!x && !!y && x.length === y.length && x.every((v, i) => v === y[i]);
}

function anyKeyMatches(raw: string, keys: string[]): boolean {
  for (const key of keys) if (signatureMatches(raw, key)) return true;
  return false;
}

/** Why a signature fails, from the variants a host commonly sends by mistake. */
async function diagnose(
  deps: Deps,
  appId: number,
  raw: string,
  keys: string[],
  payloadText: string | null,
): Promise<string[]> {
  const dot = raw.indexOf(".");
  const sig = raw.slice(0, dot);
  const encoded = raw.slice(dot + 1);
  if (raw.includes(" ") && anyKeyMatches(raw.replaceAll(" ", "+"), keys)) {
    return [
      "'+' characters arrived as spaces: the form body was not percent-encoded. Encode the " +
      "value (URLSearchParams, encodeURIComponent) or submit a real HTML form.",
    ];
  }
  if (/[-_]/.test(encoded)) {
    const standard = encoded.replaceAll("-", "+").replaceAll("_", "/");
    const padded = standard + "=".repeat((4 - (standard.length % 4)) % 4);
    for (const candidate of [standard, padded]) {
      if (anyKeyMatches(`${sig}.${candidate}`, keys)) {
        return [
          "The payload was turned into URL-safe Base64 after signing. The HMAC covers the exact " +
          "payload text: send the standard Base64 text you signed.",
        ];
      }
    }
  }
  const causes: string[] = [];
  if (payloadText !== null) {
    if (!encoded.endsWith("=")) {
      const padded = encoded + "=".repeat((4 - (encoded.length % 4)) % 4);
      if (padded !== encoded && anyKeyMatches(`${sig}.${padded}`, keys)) {
        return ["The payload's '=' padding was removed after signing: send it as signed."];
      }
    }
    try {
      const parsed = JSON.parse(payloadText);
      for (const json of [JSON.stringify(parsed), JSON.stringify(parsed, null, 2)]) {
        if (json === payloadText) continue;
        if (anyKeyMatches(`${sig}.${encodeBase64(json)}`, keys)) {
          return [
            "The payload was re-encoded after signing (its JSON was re-serialized). Sign the " +
            "exact Base64 text you send, and send it unchanged.",
          ];
        }
      }
    } catch { /* not JSON: reported elsewhere */ }
    for (const key of keys) {
      if (sameBytes(sig, await hmacBase64(payloadText, key))) {
        return [
          "The HMAC was computed over the JSON text instead of its Base64 encoding (spec §4.1 " +
          "step 3: sign the Base64 text).",
        ];
      }
    }
  }
  if (/^[0-9a-f]{64}$/i.test(sig)) {
    causes.push("The signature looks hex-encoded: it must be Base64 of the 32 raw HMAC bytes.");
  }
  for (const other of await listApps(deps.sql)) {
    if (other.id === appId) continue;
    if (anyKeyMatches(raw, (await signingKeys(deps, other)).map((k) => k.key))) {
      return [`It was signed with the key of another app, ${other.appName}.`];
    }
  }
  causes.push(
    "Wrong key: the signature does not match this app's API key (for oauth2_signed_request " +
      "apps, its Consumer Secret). Check the key the host signs with, or rotate and update it.",
  );
  return causes;
}

/** Inspects `raw` for the app `appName`; 404 naming appName when there is no such app. */
export async function inspectSignedRequest(
  deps: Deps,
  appName: string,
  raw: string,
): Promise<Inspection> {
  const app = await findAppByName(deps.sql, appName);
  if (!app) {
    throw new AppError(404, "app_not_found", `Unknown application: ${appName}`, [
      { path: "appName", message: "no app has this App Name" },
    ]);
  }
  // The launch endpoint's own transport repair ('+' sent as spaces, Base64 wrapped in lines).
  const { value, warning: repaired } = repairSignedRequest(raw);
  const out: Inspection = {
    appName: app.appName,
    signature: "malformed",
    causes: [],
    payloadText: null,
    payload: null,
    decodeError: null,
    validation: null,
    plan: null,
    planError: null,
  };
  const dot = value.indexOf(".");
  if (dot <= 0 || dot === value.length - 1) {
    out.causes = [
      `A ${SIGNED_REQUEST_FIELD} is <signature>.<encoded_payload>: this value has no '.'`,
    ];
    return out;
  }
  const encoded = value.slice(dot + 1).replaceAll(" ", "+");
  const bytes = decodeBase64(encoded);
  if (!bytes) out.decodeError = "The payload segment is not Base64";
  else {
    try {
      out.payloadText = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
      out.payload = JSON.parse(out.payloadText);
    } catch {
      out.decodeError = out.payloadText === null
        ? "The payload is not UTF-8 text"
        : "The payload is not JSON";
    }
  }
  const keys = (await signingKeys(deps, app)).map((k) => k.key);
  out.signature = anyKeyMatches(value, keys) ? "valid" : "invalid";
  if (out.signature === "invalid") {
    out.causes = await diagnose(deps, app.id, value, keys, out.payloadText);
  } else if (repaired) {
    out.causes = [
      repaired.repairs.includes("spaces_to_plus")
        ? "'+' characters arrived as spaces: the form body was not percent-encoded. The launch " +
          "endpoint repairs this and launches with a signed_request_repaired warning; encode the " +
          "value (URLSearchParams, encodeURIComponent) or submit a real HTML form."
        : "The Base64 arrived wrapped in lines. The launch endpoint removes the line breaks and " +
          "launches with a signed_request_repaired warning; send it on one line.",
    ];
  }
  if (out.payload && typeof out.payload === "object") {
    try {
      const parsed = parseLaunchPayload(out.payload as Record<string, unknown>);
      out.validation = { message: "Valid launch payload", errors: [] };
      try {
        out.plan = (await planLaunch(deps, parsed, {
          appId: app.id,
          appName: app.appName,
          clientAddress: null,
          userAgent: null,
          payload: out.payload,
        })).plan;
      } catch (err) {
        if (!(err instanceof AppError)) throw err;
        out.planError = { status: err.status, message: err.message, errors: err.errors ?? [] };
      }
    } catch (err) {
      if (!(err instanceof AppError)) throw err;
      out.validation = { message: err.message, errors: err.errors ?? [] };
    }
  }
  return out;
}
