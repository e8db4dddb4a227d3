/** Encrypts the secrets we must read back (API keys, consumer secrets) with AES-256-GCM. */
import { decodeBase64, encodeBase64 } from "./base64.ts";
import { randomBytes } from "./random_token.ts";

const encoder = new TextEncoder();
const PREFIX = "v1:";

/** Encrypts and decrypts short secrets under a key derived from SECRET_KEY. */
export interface SecretBox {
  encrypt(plain: string): Promise<string>;
  decrypt(sealed: string): Promise<string>;
}

/** Derives the AES-GCM key from SECRET_KEY with HKDF-SHA256 and returns a SecretBox. */
export async function createSecretBox(secretKey: string): Promise<SecretBox> {
  const material = await crypto.subtle.importKey("raw", encoder.encode(secretKey), "HKDF", false, [
    "deriveKey",
  ]);
  const key = await crypto.subtle.deriveKey(
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
  return {
    async encrypt(plain: string): Promise<string> {
      const iv = randomBytes(12);
      const cipher = await crypto.subtle.encrypt(
        { name: "AES-GCM", iv: iv as BufferSource },
        key,
        encoder.encode(plain),
      );
      const out = new Uint8Array(12 + cipher.byteLength);
      out.set(iv);
      out.set(new Uint8Array(cipher), 12);
      return PREFIX + encodeBase64(out);
    },
    async decrypt(sealed: string): Promise<string> {
      const bytes = sealed.startsWith(PREFIX) ? decodeBase64(sealed.slice(PREFIX.length)) : null;
      if (!bytes || bytes.length < 13) throw new Error("stored secret is not in v1 format");
      try {
        const plain = await crypto.subtle.decrypt(
          { name: "AES-GCM", iv: bytes.subarray(0, 12) as BufferSource },
          key,
          bytes.subarray(12) as BufferSource,
        );
        return new TextDecoder().decode(plain);
      } catch {
        throw new Error(
          "cannot decrypt a stored secret: SECRET_KEY differs from the one it was saved with",
        );
      }
    },
  };
}
