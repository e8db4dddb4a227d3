/**
 * The signer as a package, as a Node host app uses it: `import "@portal-launcher/signer"` through
 * the package's exports map (node_modules link to widget/signer), run by `node`. The core has no
 * imports, is ≤ 3 KB gzipped and leaves the host's globals alone (./validate: zod's settings); it reproduces every signed-request
 * vector, and both checks (the portal's dry run over HTTP, the local validator) answer.
 */
import assert from "node:assert/strict";
import { BUNDLES, gzipSize } from "../../tools/build.ts";
import { pglite } from "../helpers/db.ts";
import { startHttpService } from "../helpers/http_service.ts";
import { createTestApp } from "../helpers/launch.ts";
import { ensureWidgetBuilt } from "../helpers/widget.ts";

const root = new URL("../../", import.meta.url).pathname;
const opts = { sanitizeOps: false, sanitizeResources: false };
const core = BUNDLES.find((b) => b.entry === "signer")!.file;

Deno.test("signer package: the core has no imports and is at most 3 KB gzipped", async () => {
  await ensureWidgetBuilt();
  const text = await Deno.readTextFile(`${root}${core}`);
  assert.doesNotMatch(
    text,
    /\bimport\s*[{*("']|\bimport\s+[\w$]+\s+from\b|\brequire\(/,
    "no dependencies",
  );
  const gz = await gzipSize(`${root}${core}`);
  assert.ok(gz <= 3072, `${core}: ${gz} bytes gzipped`);
  const pkg = JSON.parse(await Deno.readTextFile(`${root}widget/signer/package.json`));
  assert.equal(pkg.exports["."].default, `./${core.replace("widget/signer/", "")}`);
  assert.deepEqual(pkg.dependencies ?? {}, {});
});

const SCRIPT = `
import { readFileSync } from "node:fs";
const [vectorsFile, portalUrl, appName, apiKey] = process.argv.slice(2);
const globalsBefore = Object.getOwnPropertyNames(globalThis).sort().join();
const { signLaunch, createSignHandler } = await import("@portal-launcher/signer");
const out = { globalsUnchanged: Object.getOwnPropertyNames(globalThis).sort().join() === globalsBefore };
const { validateLaunchPayload } = await import("@portal-launcher/signer/validate");
// zod 4 (bundled in ./validate) keeps its shared config on globalThis: the service's messages
// must not be installed there, or a host's own zod schemas would change their messages.
out.zodSettingsUntouched = !("customError" in (globalThis.__zod_globalConfig ?? {}));
const vectors = JSON.parse(readFileSync(vectorsFile, "utf8")).cases;
out.vectors = [];
for (const v of vectors) out.vectors.push((await signLaunch(v.payloadJson, v.apiKey)) === v.signedRequest);
const contact = {
  referenceNumber: "CASE42", contactId: "C42", contactFirstName: "José", contactLastName: "Núñez",
  contactEmail: "jose@example.org", contactPhone: "5550001111",
};
const user = { id: "agent7", email: "zoe@example.com", first_name: "Zoë", last_name: "O'Brien" };
const post = (parameters) => new Request("http://crm.test/sign", {
  method: "POST", body: JSON.stringify({ parameters }),
});
const answer = async (res) => ({ status: res.status, body: await res.json() });
const viaPortal = createSignHandler({ portalUrl, appName, apiKey, user: () => user, allow: Object.keys(contact) });
out.portalOk = await answer(await viaPortal(post(contact)));
out.portalBad = await answer(await viaPortal(post({ ...contact, contactEmail: "nope" })));
const local = createSignHandler({
  portalUrl, appName, apiKey, user: () => user, allow: Object.keys(contact),
  validate: validateLaunchPayload,
});
out.localBad = await answer(await local(post({ ...contact, contactPhone: "call me" })));
console.log(JSON.stringify(out));
`;

Deno.test("signer package: runs under Node through its exports map", opts, async () => {
  await ensureWidgetBuilt();
  const svc = await startHttpService(pglite);
  const dir = await Deno.makeTempDir({ prefix: "pl-signer-node-" });
  try {
    const app = await createTestApp(svc, await svc.adminToken());
    await Deno.mkdir(`${dir}/node_modules/@portal-launcher`, { recursive: true });
    await Deno.symlink(`${root}widget/signer`, `${dir}/node_modules/@portal-launcher/signer`);
    await Deno.writeTextFile(`${dir}/host.mjs`, SCRIPT);
    const run = await new Deno.Command("node", {
      args: [
        "host.mjs",
        `${root}test/fixtures/signed_request.json`,
        `${svc.base}/portal`,
        app.appName,
        app.apiKey,
      ],
      cwd: dir,
      stdout: "piped",
      stderr: "piped",
    }).output();
    const stderr = new TextDecoder().decode(run.stderr);
    assert.equal(run.code, 0, stderr);
    const out = JSON.parse(new TextDecoder().decode(run.stdout));
    assert.equal(out.globalsUnchanged, true, "importing the signer core adds no globals");
    assert.equal(out.zodSettingsUntouched, true, "./validate changes no zod setting");
    assert.ok(out.vectors.length >= 4 && out.vectors.every(Boolean), JSON.stringify(out.vectors));
    assert.equal(out.portalOk.status, 200, JSON.stringify(out.portalOk));
    assert.equal(out.portalOk.body.action, `${svc.base}/portal/api/auth/app/${app.appName}`);
    assert.equal(out.portalBad.status, 400);
    assert.deepEqual(out.portalBad.body.errors.map((e: { path: string }) => e.path), [
      "context.environment.parameters.contactEmail",
    ]);
    assert.equal(out.localBad.status, 400);
    assert.deepEqual(out.localBad.body.errors.map((e: { path: string }) => e.path), [
      "context.environment.parameters.contactPhone",
    ]);
  } finally {
    await Deno.remove(dir, { recursive: true });
    await svc.close();
  }
});
