/** Every stable error code the service sends is listed in docs/api.md#error-codes. */
import assert from "node:assert/strict";

const ROOT = new URL("../../", import.meta.url);

async function serverFiles(dir: URL, out: string[] = []): Promise<string[]> {
  for await (const entry of Deno.readDir(dir)) {
    const url = new URL(entry.name + (entry.isDirectory ? "/" : ""), dir);
    if (entry.isDirectory) await serverFiles(url, out);
    else if (/\.tsx?$/.test(entry.name)) out.push(url.pathname);
  }
  return out;
}

Deno.test("docs: every error code of the service is in docs/api.md", async () => {
  const codes = new Set<string>();
  for (const file of await serverFiles(new URL("server/", ROOT))) {
    const text = await Deno.readTextFile(file);
    for (const m of text.matchAll(/new (?:AppError|OAuthError)\(\s*\d+\s*,\s*"([a-z_]+)"/g)) {
      codes.add(m[1]);
    }
    // The codes the error handler and the 404 route write themselves.
    if (/http\/errors\.ts$|server\/app\.ts$/.test(file)) {
      for (const m of text.matchAll(/\["([a-z_]+)", "[^"]+"\]|code: "([a-z_]+)"/g)) {
        codes.add(m[1] ?? m[2]);
      }
    }
  }
  assert.ok(codes.size > 30, `found ${codes.size} codes`);
  const docs = await Deno.readTextFile(new URL("docs/api.md", ROOT));
  const section = docs.slice(docs.indexOf("## Error codes"));
  const missing = [...codes].filter((code) => !section.includes(`\`${code}\``)).sort();
  assert.deepEqual(missing, [], "list them in docs/api.md#error-codes");
});
