/**
 * Landed migrations are never edited: a database that already ran one would never see the edit
 * (db/migrate.ts applies each migration once). test/fixtures/landed_migrations.sha256 holds the
 * SHA-256 of every migration as it landed (`sha256sum` format, so `cd db/migrations && sha256sum
 * -c ../../test/fixtures/landed_migrations.sha256` checks it too). A change to a stored function
 * goes in db/functions/; a schema change goes in a new migration, whose line is added here.
 */
import assert from "node:assert/strict";
import { createHash } from "node:crypto";

const root = new URL("../../", import.meta.url);
const dir = new URL("db/migrations/", root);
const LIST = "test/fixtures/landed_migrations.sha256";

Deno.test("landed migrations: every migration is listed with the hash it landed with", async () => {
  const listed = new Map<string, string>();
  for (const line of (await Deno.readTextFile(new URL(LIST, root))).split("\n")) {
    if (!line.trim()) continue;
    const [hash, name] = line.split(/\s+\*?/);
    listed.set(name, hash);
  }
  const problems: string[] = [];
  const names: string[] = [];
  for await (const entry of Deno.readDir(dir)) {
    if (entry.name.endsWith(".sql")) names.push(entry.name);
  }
  for (const name of names.sort()) {
    const hash = createHash("sha256").update(await Deno.readFile(new URL(name, dir))).digest("hex");
    const was = listed.get(name);
    if (was === undefined) {
      problems.push(
        `${name} is new: add its line to ${LIST} (cd db/migrations && sha256sum ${name})`,
      );
    } else if (was !== hash) {
      problems.push(
        `${name} changed after it landed: restore it and put the change in a new migration ` +
          "(stored functions: db/functions/)",
      );
    }
  }
  for (const name of listed.keys()) {
    if (!names.includes(name)) problems.push(`${name} is listed in ${LIST} but was removed`);
  }
  assert.deepEqual(problems, []);
});
