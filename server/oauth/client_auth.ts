/** OAuth client authentication: HTTP Basic or body parameters (RFC 6749 §2.3.1). */
import type { Tx } from "../../db/mod.ts";
import { type ApiClientRow, findClient } from "../../db/queries/api_clients.ts";
import { hashSecret, verifySecret } from "../crypto/hashing.ts";
import { decodeBase64 } from "../crypto/base64.ts";
import { OAuthError } from "../http/errors.ts";
import { nulFieldError } from "../http/nul.ts";

/** Client credentials as sent, and how. */
export interface ClientCredentials {
  clientId: string;
  clientSecret: string;
  method: "basic" | "post";
}

// Verified against when the client id is unknown, so both failures take the same time.
const DUMMY_HASH = hashSecret("dummy-secret-for-unknown-clients");

function formDecode(text: string): string {
  return decodeURIComponent(text.replace(/\+/g, " "));
}

/**
 * Decodes `Authorization: Basic ...`: Base64, then UTF-8, split at the first colon, then each half
 * form-url-decoded. Returns null when the header is not Basic; throws on a malformed value.
 */
export function decodeBasicAuth(header: string | undefined): ClientCredentials | null {
  const match = header?.match(/^Basic[ ]+(\S*)\s*$/i);
  if (!match) return null;
  const bytes = decodeBase64(match[1]);
  let text: string;
  try {
    if (!bytes) throw new Error();
    text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    throw basicFailure("The Basic credentials are not valid Base64 of UTF-8 text");
  }
  const colon = text.indexOf(":");
  if (colon < 0) throw basicFailure("The Basic credentials must be client_id:client_secret");
  let credentials: ClientCredentials;
  try {
    credentials = {
      clientId: formDecode(text.slice(0, colon)),
      clientSecret: formDecode(text.slice(colon + 1)),
      method: "basic",
    };
  } catch {
    throw basicFailure("The Basic credentials hold an invalid percent-encoding");
  }
  // The one rule for U+0000 in any input (server/http/nul.ts), for the credentials' two fields.
  for (
    const [field, value] of [["client_id", credentials.clientId], [
      "client_secret",
      credentials.clientSecret,
    ]]
  ) {
    if (value.includes("\0")) {
      throw new OAuthError(
        400,
        "invalid_request",
        `Basic ${field} ${nulFieldError(field).message}`,
      );
    }
  }
  return credentials;
}

function basicFailure(message: string): OAuthError {
  return new OAuthError(401, "invalid_client", message, undefined, {
    "WWW-Authenticate": 'Basic realm="oauth2", charset="UTF-8"',
  });
}

/**
 * Picks the client credentials of a token/revoke/introspect request: Basic or body, never both.
 */
export function readClientCredentials(
  authorization: string | undefined,
  form: Record<string, string>,
): ClientCredentials {
  const basic = decodeBasicAuth(authorization);
  if (basic) {
    if (form.client_secret !== undefined) {
      throw new OAuthError(
        400,
        "invalid_request",
        "Use one client authentication method: HTTP Basic or client_id/client_secret in the body",
      );
    }
    if (form.client_id !== undefined && form.client_id !== basic.clientId) {
      throw new OAuthError(400, "invalid_request", "client_id differs from the Basic credentials");
    }
    return basic;
  }
  if (form.client_id === undefined && form.client_secret === undefined) {
    throw basicFailure(
      "Client authentication is required: HTTP Basic or client_id and client_secret",
    );
  }
  if (!form.client_id || form.client_secret === undefined) {
    throw new OAuthError(
      400,
      "invalid_request",
      "Send both client_id and client_secret (or use HTTP Basic)",
    );
  }
  return { clientId: form.client_id, clientSecret: form.client_secret, method: "post" };
}

/** Verifies credentials; unknown client and wrong secret fail alike, in about the same time. */
export async function authenticateClient(tx: Tx, creds: ClientCredentials): Promise<ApiClientRow> {
  const client = await findClient(tx, creds.clientId);
  const ok = verifySecret(creds.clientSecret, client?.secretHash ?? DUMMY_HASH);
  // A disabled app's client is refused like an unknown one (its tokens stop working too).
  if (client && ok && client.appEnabled) return client;
  const message = "Client authentication failed";
  if (creds.method === "basic") throw basicFailure(message);
  throw new OAuthError(400, "invalid_client", message);
}
