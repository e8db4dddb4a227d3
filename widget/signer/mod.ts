/**
 * `@portal-launcher/signer`: the host-backend side of `<portal-launcher>`. It builds the launch
 * payload on the server from the host's signed-in user, has it checked by the portal's dry run
 * (or a validator of your choice), and signs it. No dependencies, Web Crypto only, no global
 * state: it runs on Node >= 18, Deno, Bun and workers. The API key never leaves the server.
 *
 * Local validation with the service's own schema (no network): `@portal-launcher/signer/validate`.
 *
 * @module
 */
import {
  ALGORITHM,
  freshnessFields,
  launchUrl,
  SIGNED_REQUEST_FIELD,
  validateUrl,
} from "../../server/launch/contract.ts";
import { signPayload } from "../../server/crypto/hmac.ts";

/**
 * Signs a launch payload: Base64 of the UTF-8 JSON, HMAC-SHA256 over that Base64 text keyed with
 * the API key, Base64 signature, joined with a period (docs/spec.md §4.1). A string payload is
 * signed as the exact JSON text given.
 *
 * @example
 * ```ts
 * // payload: {algorithm, issuedAt, nonce, context: {user, environment: {parameters}}}
 * // (docs/launch-protocol.md); createSignHandler builds it for you.
 * const signedRequest = await signLaunch(payload, process.env.PORTAL_API_KEY);
 * // POST it as the form field signed_request to the app's launch URL
 * ```
 */
export async function signLaunch(payload: unknown, apiKey: string): Promise<string> {
  return await signPayload(typeof payload === "string" ? payload : JSON.stringify(payload), apiKey);
}

/** The agent, from the host's own authentication (docs/spec.md §2.2 context.user). */
export interface LaunchUser {
  id?: string;
  email: string;
  first_name: string;
  last_name: string;
  phone?: string;
  locale?: string;
  teams?: { teamId: string; teamName: string }[];
}

/** One problem with one field of the payload. */
export interface FieldProblem {
  path: string;
  message: string;
}

/** Why a payload cannot launch. */
export interface LaunchProblem {
  message: string;
  errors: FieldProblem[];
}

/**
 * Checks a payload before it is signed: null when it can launch. `@portal-launcher/signer/validate`
 * exports one that applies the service's own schema locally.
 */
export type LaunchValidator = (
  payload: Record<string, unknown>,
) => LaunchProblem | null | Promise<LaunchProblem | null>;

/** Options of createSignHandler. */
export interface SignHandlerOptions {
  /** The portal's base URL, with its prefix: `https://portal.example.com/portal`. */
  portalUrl: string;
  /** The App Name of the authentication configuration. */
  appName: string;
  /** The app's API key (or, for oauth2_signed_request apps, its consumer secret). */
  apiKey: string;
  /** The signed-in host user for this request, or null when nobody is signed in (401). */
  user: (req: Request) => LaunchUser | null | Promise<LaunchUser | null>;
  /**
   * Builds the launch parameters from what the page sent (already limited to `allow`): look the
   * contact up in your own data here rather than trusting the browser. Default: the page's values.
   */
  parameters?: (
    req: Request,
    requested: Record<string, unknown>,
  ) => Record<string, unknown> | Promise<Record<string, unknown>>;
  /** Parameter names the page may send; any other is refused with 400. Default: none. */
  allow?: string[];
  /**
   * How the payload is checked before it is answered: `"portal"` (default) signs it and asks the
   * portal's dry run, which applies every rule of the launch without writing anything; a
   * LaunchValidator (e.g. `validateLaunchPayload` of `@portal-launcher/signer/validate`) checks it
   * locally; `"none"` skips the check (the launch itself still refuses a bad payload).
   */
  validate?: "portal" | "none" | LaunchValidator;
  /** The fetch used for the dry run. Default: the global fetch. */
  fetch?: (input: string, init: RequestInit) => Promise<Response>;
}

function json(body: unknown, status: number): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { "Content-Type": "application/json", "Cache-Control": "no-store" },
  });
}

const invalid = (errors: FieldProblem[]) =>
  json({ message: "Invalid launch request", errors }, 400);

/** Asks the portal's dry run about a signed request: null when it would launch. */
async function portalCheck(
  options: SignHandlerOptions,
  signedRequest: string,
): Promise<Response | null> {
  let res: Response;
  try {
    res = await (options.fetch ?? fetch)(validateUrl(options.portalUrl, options.appName), {
      method: "POST",
      headers: { Accept: "application/json" },
      body: new URLSearchParams({ [SIGNED_REQUEST_FIELD]: signedRequest }),
    });
  } catch (err) {
    return json({ message: `The portal's dry run could not be reached: ${err}`, errors: [] }, 502);
  }
  let body: Partial<LaunchProblem> & { ok?: boolean } = {};
  try {
    body = await res.json();
  } catch { /* not JSON: the status says enough */ }
  if (res.ok && body.ok) return null;
  const errors = Array.isArray(body.errors) ? body.errors : [];
  const message = typeof body.message === "string" ? body.message : `HTTP ${res.status}`;
  // The payload's own problems go back to the page; the host's set-up problems (wrong key, unknown
  // app, rate limit) are a bad gateway, logged by the host rather than shown field by field.
  return [400, 409, 422].includes(res.status)
    ? json({ message, errors }, 400)
    : json({ message: `The portal's dry run answered ${res.status}: ${message}`, errors }, 502);
}

/**
 * A `(req) => Response` handler for the element's sign-url: POST `{parameters}` as JSON answers
 * `{action, signedRequest}`, or 400 `{message, errors: [{path, message}]}` naming each problem
 * (refused parameters, and every rule of the launch), 401 when no user is signed in, 405 for
 * other methods, 502 when the portal's dry run cannot be asked or refuses the set-up.
 *
 * @example
 * ```ts
 * import { createSignHandler } from "@portal-launcher/signer";
 *
 * const sign = createSignHandler({
 *   portalUrl: "https://portal.example.com/portal",
 *   appName: "crm",
 *   apiKey: process.env.PORTAL_API_KEY!,
 *   user: (req) => currentUser(req), // your session: {email, first_name, last_name, ...}
 *   allow: ["caseId"],
 *   parameters: async (_req, { caseId }) => casePayload(await findCase(String(caseId))),
 * });
 * // Node: app.post("/sign", (req, res) => toNode(res, await sign(toRequest(req))));
 * // Deno, Bun, workers: route POST /sign to `sign` directly.
 * ```
 */
export function createSignHandler(
  options: SignHandlerOptions,
): (req: Request) => Promise<Response> {
  const action = launchUrl(options.portalUrl, options.appName);
  const allow = new Set(options.allow ?? []);
  const validate = options.validate ?? "portal";
  return async (req) => {
    if (req.method !== "POST") {
      return new Response(null, { status: 405, headers: { Allow: "POST" } });
    }
    const user = await options.user(req);
    if (!user) return json({ message: "Sign in to the application first" }, 401);
    let body: unknown;
    try {
      body = await req.json();
    } catch {
      return json({ message: 'Send JSON: {"parameters": {...}}' }, 400);
    }
    const raw = (body as { parameters?: unknown } | null)?.parameters ?? {};
    if (typeof raw !== "object" || raw === null || Array.isArray(raw)) {
      return invalid([{ path: "parameters", message: "expected an object" }]);
    }
    const refused = Object.keys(raw).filter((name) => !allow.has(name));
    if (refused.length) {
      return invalid(refused.map((name) => ({
        path: `parameters.${name}`,
        message: "not allowed from the page (add it to allow, or set it on the server)",
      })));
    }
    const requested = raw as Record<string, unknown>;
    const parameters = options.parameters ? await options.parameters(req, requested) : requested;
    // Fresh issuedAt and a random nonce: each signed request launches once, within the app's
    // window (replay protection).
    const payload = {
      algorithm: ALGORITHM,
      ...freshnessFields(),
      context: { user, environment: { parameters } },
    };
    if (typeof validate === "function") {
      const problem = await validate(payload);
      if (problem) return json(problem, 400);
    }
    const signedRequest = await signLaunch(payload, options.apiKey);
    if (validate === "portal") {
      const refusal = await portalCheck(options, signedRequest);
      if (refusal) return refusal;
    }
    return json({ action, signedRequest }, 200);
  };
}
