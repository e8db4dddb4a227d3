/**
 * The signed-request inspector: decodes a pasted signed_request for an app, says whether the
 * signature matches and, when it does not, the likely cause it can detect, lists every validation
 * problem and shows the plan the launch would run (the dry run). It writes nothing.
 */
import { findAppByName } from "../../db/queries/apps.ts";
import { decodeBase64 } from "../crypto/base64.ts";
import type { Deps } from "../deps.ts";
import { AppError, type FieldError } from "../http/errors.ts";
import { type LaunchPlan, planLaunch } from "../launch/flow.ts";
import { jsonErrorPosition } from "../http/json_position.ts";
import { parseLaunchPayload } from "../launch/payload.ts";
import { diagnoseSignature } from "../launch/signature_diagnosis.ts";
import { repairSignedRequest } from "../launch/signed_request.ts";

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
  const diagnosis = await diagnoseSignature(deps, app, raw, "all");
  const out: Inspection = {
    appName: app.appName,
    ...diagnosis,
    payloadText: null,
    payload: null,
    decodeError: null,
    validation: null,
    plan: null,
    planError: null,
  };
  if (diagnosis.signature === "malformed") return out;
  const { value } = repairSignedRequest(raw);
  const bytes = decodeBase64(value.slice(value.indexOf(".") + 1));
  if (!bytes) out.decodeError = "The payload segment is not Base64";
  else {
    try {
      out.payloadText = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
      out.payload = JSON.parse(out.payloadText);
    } catch {
      if (out.payloadText === null) out.decodeError = "The payload is not UTF-8 text";
      else {
        const { line, column } = jsonErrorPosition(out.payloadText);
        out.decodeError = `The payload is not JSON: it breaks at line ${line}, column ${column}`;
      }
    }
  }
  if (out.payload && typeof out.payload === "object") {
    try {
      const parsed = parseLaunchPayload(out.payload as Record<string, unknown>);
      // Never "valid" alone when the launch would be refused for its signature.
      out.validation = {
        message: out.signature === "valid"
          ? "Valid launch payload"
          : "Valid launch payload, but its signature did not verify: the launch would be " +
            "refused (invalid_signature)",
        errors: [],
      };
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
