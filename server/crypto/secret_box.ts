/**
 * Encrypts the secrets we must read back (API keys, consumer secrets) with AES-256-GCM. Each
 * sealed value is bound to what it is (`apps/<id>/<field>`) as additional data, so a sealed value
 * copied into another app's row or another field does not decrypt. With SECRET_KEY_PREVIOUS set,
 * values sealed under the previous key still open, and `reseal` moves them to the current one.
 */
import { decodeBase64, encodeBase64 } from "./base64.ts";
import { randomBytes } from "./random_token.ts";

const encoder = new TextEncoder();
/** v2: AES-GCM with the value's context as additional data. */
const V2 = "v2:";
/** v1: the first format, without additional data (read, never written). */
const V1 = "v1:";

/** The sealed secrets of an app (a rotation's previous key is still the same field). */
export type SealedField = "api_key" | "consumer_secret" | "callback_secret" | "crm_token";

/** What a sealed app secret is bound to: `apps/<id>/<field>`. */
export function secretContext(appId: number, field: SealedField): string {
  return `apps/${appId}/${field}`;
}

/** Encrypts and decrypts short secrets under a key derived from SECRET_KEY. */
export interface SecretBox {
  /** Seals `plain` for `context` (e.g. `apps/12/api_key`). */
  encrypt(plain: string, context: string): Promise<string>;
  /** Opens a value sealed for `context`, under the current or the previous key. */
  decrypt(sealed: string, context: string): Promise<string>;
  /** True when `sealed` is not in the current format under the current key (reseal it). */
  needsReseal(sealed: string, context: string): Promise<boolean>;
}

async function aesKey(secretKey: string): Promise<CryptoKey> {
  const material = await crypto.subtle.importKey("raw", encoder.encode(secretKey), "HKDF", false, [
    "deriveKey",
  ]);
  return await crypto.subtle.deriveKey(
    {
      name: "HKDF",
      hash: "SHA-256",
      salt: encoder.encode("portal-launcher"),
      info: encoder.encode("stored-secrets v1"),
    },
    material,
    { name: "AES-GCM", length: 256 },
    false,
    ["encrypt", "decrypt"],
  );
}

/** Opens `sealed` with `key`, or returns null when it does not open. */
async function open(key: CryptoKey, sealed: string, context: string): Promise<string | null> {
  const v2 = sealed.startsWith(V2);
  if (!v2 && !sealed.startsWith(V1)) return null;
  const bytes = decodeBase64(sealed.slice(3));
  if (!bytes || bytes.length < 13) return null;
  try {
    const plain = await crypto.subtle.decrypt(
      {
        name: "AES-GCM",
        iv: bytes.subarray(0, 12) as BufferSource,
        ...(v2 ? { additionalData: encoder.encode(context) } : {}),
      },
      key,
      bytes.subarray(12) as BufferSource,
    );
    return new TextDecoder().decode(plain);
  } catch {
    return null;
  }
}

/** Derives the AES-GCM keys from SECRET_KEY (and SECRET_KEY_PREVIOUS) with HKDF-SHA256. */
export async function createSecretBox(secretKey: string, previousKey?: string): Promise<SecretBox> {
  const current = await aesKey(secretKey);
  const previous = previousKey ? await aesKey(previousKey) : null;
  return {
    async encrypt(plain, context) {
      const iv = randomBytes(12);
      const cipher = await crypto.subtle.encrypt(
        { name: "AES-GCM", iv: iv as BufferSource, additionalData: encoder.encode(context) },
        current,
        encoder.encode(plain),
      );
      const out = new Uint8Array(12 + cipher.byteLength);
      out.set(iv);
      out.set(new Uint8Array(cipher), 12);
      return V2 + encodeBase64(out);
    },
    async decrypt(sealed, context) {
      const plain = await open(current, sealed, context) ??
        (previous ? await open(previous, sealed, context) : null);
      if (plain === null) {
        throw new Error(
          `cannot decrypt the stored secret ${context}: SECRET_KEY differs from the one it was ` +
            "saved with (set SECRET_KEY_PREVIOUS to the old key while rotating), or the value " +
            "was copied from another app or field",
        );
      }
      return plain;
    },
    async needsReseal(sealed, context) {
      return !sealed.startsWith(V2) || (await open(current, sealed, context)) === null;
    },
  };
}
