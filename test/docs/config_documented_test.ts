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

Deno.test("docs: compose.yaml gives the service only variables the README documents", async () => {
  const compose = await Deno.readTextFile(new URL("compose.yaml", ROOT));
  // The service's environment: the shared block and the `portal` service's own (PostgreSQL's and
  // PgBouncer's images read theirs).
  const shared = compose.slice(
    compose.indexOf("x-portal-environment"),
    compose.indexOf("services:"),
  );
  const portal = compose.slice(compose.indexOf("\n  portal:"), compose.indexOf("\n  pgbouncer:"));
  const names = [...`${shared}\n${portal}`.matchAll(/^\s+([A-Z][A-Z0-9_]+):/gm)].map((m) => m[1]);
  assert.ok(names.includes("ADMIN_EMAIL") && names.includes("DATABASE_DIRECT_URL"), `${names}`);
  const readme = await Deno.readTextFile(new URL("README.md", ROOT));
  assert.deepEqual(names.filter((name) => !readme.includes(`\`${name}\``)), []);
});
