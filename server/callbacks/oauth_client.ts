/**
 * Outbound OAuth 2.0: access tokens from a CRM's token endpoint with the client-credentials grant
 * (RFC 6749 §4.4), authenticated with the app's Consumer Key and Secret either by HTTP Basic
 * (`client_secret_basic`, both form-urlencoded first as §2.3.1 requires) or as body parameters
 * (`client_secret_post`). Tokens are cached per app until 30 s (or a tenth of their life, when
 * shorter) before `expires_in`; `invalidate` drops one after the CRM answered 401.
 */
import { checkDestination, type Resolver } from "./destination.ts";
import type { Answer, CallbackHttpClient } from "./http_client.ts";
import { requestSignal } from "./timeout.ts";

/** What a token request needs from the app. */
export interface TokenClient {
  appId: number;
  tokenUrl: string;
  clientId: string;
  clientSecret: string;
  authMethod: "client_secret_basic" | "client_secret_post";
}

/** A failed token request: the delivery fails (and is retried) with this message. */
export class TokenError extends Error {
  constructor(message: string, readonly retryable = true) {
    super(message);
    this.name = "TokenError";
  }
}

/** The most of a token response read (a longer one is no token this client can use). */
const TOKEN_RESPONSE_BYTES = 64 * 1024;

/** Used when the token endpoint does not say how long its token lives. */
const DEFAULT_EXPIRES_IN = 300;

function formEncode(value: string): string {
  // application/x-www-form-urlencoded: spaces as +, as RFC 6749 §2.3.1 asks for Basic too.
  return encodeURIComponent(value).replace(/%20/g, "+");
}

/** A per-process cache of client-credentials tokens. */
export class TokenSource {
  #cache = new Map<number, { token: string; renewAt: number; key: string }>();

  constructor(
    private readonly options: {
      timeoutMs: number;
      allowPrivate: boolean;
      resolve?: Resolver;
      /** Sends each request, to the addresses checked or through a proxy (http_client.ts). */
      http: CallbackHttpClient;
    },
  ) {}

  /** A live access token for the app (cached, or fetched now). */
  async token(client: TokenClient): Promise<string> {
    // A change of endpoint or credentials makes the cached token someone else's.
    const key = `${client.tokenUrl}\n${client.clientId}\n${client.clientSecret}`;
    const hit = this.#cache.get(client.appId);
    if (hit && hit.key === key && hit.renewAt > Date.now()) return hit.token;
    const { token, expiresIn } = await this.#fetchToken(client);
    const margin = Math.min(30, expiresIn / 10);
    this.#cache.set(client.appId, {
      token,
      key,
      renewAt: Date.now() + (expiresIn - margin) * 1000,
    });
    return token;
  }

  /** Forgets the app's cached token (the CRM refused it). */
  invalidate(appId: number): void {
    this.#cache.delete(appId);
  }

  async #fetchToken(client: TokenClient): Promise<{ token: string; expiresIn: number }> {
    const body = new URLSearchParams({ grant_type: "client_credentials" });
    const headers: Record<string, string> = {
      "Content-Type": "application/x-www-form-urlencoded",
      Accept: "application/json",
    };
    if (client.authMethod === "client_secret_post") {
      body.set("client_id", client.clientId);
      body.set("client_secret", client.clientSecret);
    } else {
      headers.Authorization = "Basic " +
        btoa(`${formEncode(client.clientId)}:${formEncode(client.clientSecret)}`);
    }
    // One timeout for the token URL's lookup and its request together.
    const limit = requestSignal(this.options.timeoutMs);
    let res: Answer;
    try {
      const addresses = await checkDestination(
        client.tokenUrl,
        this.options.allowPrivate,
        this.options.resolve,
        () => limit.signal,
      );
      try {
        res = await this.options.http.send(client.tokenUrl, {
          method: "POST",
          headers,
          body: body.toString(),
          signal: limit.signal,
          addresses,
          keep: TOKEN_RESPONSE_BYTES,
        });
      } catch (err) {
        const message = err instanceof Error ? err.message : String(err);
        throw new TokenError(`token request to ${client.tokenUrl} failed: ${message}`);
      }
    } finally {
      limit.clear();
    }
    const text = res.snippet ?? "";
    if (res.status < 200 || res.status > 299) {
      throw new TokenError(
        `token endpoint ${client.tokenUrl} answered ${res.status}: ${text.slice(0, 200)}`,
      );
    }
    let json: { access_token?: unknown; expires_in?: unknown; token_type?: unknown };
    try {
      json = JSON.parse(text);
    } catch {
      throw new TokenError(`token endpoint ${client.tokenUrl} answered no JSON`);
    }
    if (typeof json.access_token !== "string" || !json.access_token) {
      throw new TokenError(`token endpoint ${client.tokenUrl} answered no access_token`);
    }
    if (typeof json.token_type === "string" && json.token_type.toLowerCase() !== "bearer") {
      throw new TokenError(`token endpoint answered token_type ${json.token_type}, not Bearer`);
    }
    const expiresIn = Number(json.expires_in);
    return {
      token: json.access_token,
      expiresIn: Number.isFinite(expiresIn) && expiresIn > 0 ? expiresIn : DEFAULT_EXPIRES_IN,
    };
  }
}
