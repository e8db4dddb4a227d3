/** Every environment variable the service reads is in the README's configuration table. */
import assert from "node:assert/strict";

const ROOT = new URL("../../", import.meta.url);

Deno.test("docs: the README documents every environment variable of server/config.ts", async () => {
  const config = await Deno.readTextFile(new URL("server/config.ts", ROOT));
  const schema = config.slice(
    config.indexOf("const envSchema"),
    config.indexOf("function isOrigin"),
  );
  const variables = [...schema.matchAll(/^\s{2}([A-Z][A-Z0-9_]+):/gm)].map((m) => m[1]);
  assert.ok(variables.length >= 15, `found ${variables.length} variables`);
  const readme = await Deno.readTextFile(new URL("README.md", ROOT));
  const missing = variables.filter((name) => !readme.includes(`\`${name}\``));
  assert.deepEqual(missing, [], "add them to the README's configuration table");
});
