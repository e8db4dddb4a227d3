/**
 * The host-backend side of <portal-launcher>: build the launch payload on the server from the
 * host's signed-in user, validate it with the service's own schema, and sign it. Web Crypto only,
 * so it runs on Deno, Node >= 18, Bun and workers. The API key never leaves the server.
 *
 * Deno: import from this file. Node/Bun: `deno task build` also writes widget/dist/signer.js
 * (an ES module with the schema bundled).
 */
import { parseLaunchPayload } from "../../server/launch/payload.ts";
import { ALGORITHM, freshnessFields, launchUrl } from "../../server/launch/contract.ts";

const encoder = new TextEncoder();

function base64(bytes: Uint8Array): string {
  let binary = "";
  for (let i = 0; i < bytes.length; i += 0x8000) {
    binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  }
  return btoa(binary);
}

/**
 * Signs a launch payload: Base64 of the UTF-8 JSON, HMAC-SHA256 over that Base64 text keyed with
 * the API key, Base64 signature, joined with a period (spec §4.1). A string payload is signed as
 * the exact JSON text given.
 */
export async function signLaunchRequest(payload: unknown, apiKey: string): Promise<string> {
  const json = typeof payload === "string" ? payload : JSON.stringify(payload);
  const encoded = base64(encoder.encode(json));
  const key = await crypto.subtle.importKey(
    "raw",
    encoder.encode(apiKey),
    { name: "HMAC", hash: "SHA-256" },
    false,
    ["sign"],
  );
  const mac = await crypto.subtle.sign("HMAC", key, encoder.encode(encoded));
  return `${base64(new Uint8Array(mac))}.${encoded}`;
}

/** The agent, from the host's own authentication (spec §2.2 context.user). */
export interface LaunchUser {
  id?: string;
  email: string;
  first_name: string;
  last_name: string;
  phone?: string;
  locale?: string;
  teams?: { teamId: string; teamName: string }[];
}

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
}

function json(body: unknown, status: number): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { "Content-Type": "application/json", "Cache-Control": "no-store" },
  });
}

/**
 * A `(req) => Response` handler for the element's sign-url: POST `{parameters}` as JSON answers
 * `{action, signedRequest}`, or 400 `{message, errors: [{path, message}]}` naming each problem
 * (refused parameters, and every rule of the service's payload schema), 401 when no user is signed
 * in, 405 for other methods.
 */
export function createSignHandler(
  options: SignHandlerOptions,
): (req: Request) => Promise<Response> {
  const action = launchUrl(options.portalUrl, options.appName);
  const allow = new Set(options.allow ?? []);
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
      return json({
        message: "Invalid launch request",
        errors: [{ path: "parameters", message: "expected an object" }],
      }, 400);
    }
    const refused = Object.keys(raw).filter((name) => !allow.has(name));
    if (refused.length) {
      return json({
        message: "Invalid launch request",
        errors: refused.map((name) => ({
          path: `parameters.${name}`,
          message: "not allowed from the page (add it to allow, or set it on the server)",
        })),
      }, 400);
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
    try {
      parseLaunchPayload(payload);
    } catch (err) {
      const e = err as { status?: number; message?: string; errors?: unknown[] };
      return json({ message: e.message ?? "Invalid launch payload", errors: e.errors ?? [] }, 400);
    }
    return json({ action, signedRequest: await signLaunchRequest(payload, options.apiKey) }, 200);
  };
}
