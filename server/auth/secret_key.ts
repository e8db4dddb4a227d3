/** SECRET_KEY, or in embedded mode a key generated once into DATA_DIR/secret_key. */
import { encodeBase64Url } from "../crypto/base64.ts";
import { randomBytes } from "../crypto/random_token.ts";

/** Returns the configured key, else reads or creates `<dataDir>/secret_key` (mode 0600). */
export async function resolveSecretKey(configured: string | undefined, dataDir: string) {
  if (configured) return configured;
  const file = `${dataDir}/secret_key`;
  try {
    const text = (await Deno.readTextFile(file)).trim();
    if (text.length >= 32) return text;
    throw new Error(`${file} holds fewer than 32 characters; restore it or set SECRET_KEY`);
  } catch (err) {
    if (!(err instanceof Deno.errors.NotFound)) throw err;
  }
  await Deno.mkdir(dataDir, { recursive: true });
  const key = encodeBase64Url(randomBytes(32));
  await Deno.writeTextFile(file, key + "\n", { mode: 0o600, createNew: true });
  return key;
}
