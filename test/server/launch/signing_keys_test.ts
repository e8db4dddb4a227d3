import assert from "node:assert/strict";
import type { Deps } from "../../../server/deps.ts";
import { createSecretBox } from "../../../server/crypto/secret_box.ts";
import { type KeyedApp, signingKeys } from "../../../server/launch/signing_keys.ts";

const app = (id: number, apiKeySealed: string): KeyedApp => ({
  id,
  authType: "signed_request",
  apiKeySealed,
  consumerSecretSealed: null,
});

Deno.test("an app's signing key, once opened, is never served to another app's row", async () => {
  const deps = { secrets: await createSecretBox("k".repeat(32)) } as unknown as Deps;
  const sealed = await deps.secrets.encrypt("app-one-key", "apps/1/api_key");
  assert.deepEqual(await signingKeys(deps, app(1, sealed)), [
    { key: "app-one-key", which: "current" },
  ]);
  // The same sealed text copied into app 2's row: it is bound to app 1 and must not open there,
  // although app 1's launch has just opened (and cached) it.
  await assert.rejects(signingKeys(deps, app(2, sealed)), /copied from another app/);
});
