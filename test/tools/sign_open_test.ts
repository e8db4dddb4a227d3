/** `deno task sign --open`: a local page whose form posts the signed request by itself. */
import assert from "node:assert/strict";
import { signatureMatches } from "../../server/launch/signature_match.ts";
import { launchPayload } from "../helpers/payload.ts";
import { runSign } from "../helpers/sign_tool.ts";

const KEY = "sign-open-test-key-0123456789abcdef";
const URL_OF_LAUNCH = "http://localhost:8000/portal/api/auth/app/demo";

/** Runs the signer on a payload file with `args`. */
function sign(args: string[]): Promise<Deno.CommandOutput> {
  return runSign(["--key", KEY, ...args], launchPayload());
}

Deno.test("deno task sign --open writes an auto-submitting launch page and prints its path", async () => {
  const out = await sign(["--open", URL_OF_LAUNCH]);
  assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
  const path = new TextDecoder().decode(out.stdout).trim();
  assert.match(path, /portal-launch-[^/]*\.html$/);
  const html = await Deno.readTextFile(path);
  await Deno.remove(path);
  assert.match(html, new RegExp(`<form id="launch" method="post" action="${URL_OF_LAUNCH}">`));
  const value = html.match(/<input type="hidden" name="signed_request" value="([^"]+)">/)?.[1];
  assert.ok(value, "the signed_request field");
  assert.ok(signatureMatches(value.replaceAll("&quot;", '"').replaceAll("&amp;", "&"), KEY));
  const payload = JSON.parse(new TextDecoder().decode(Uint8Array.fromBase64(value.split(".")[1])));
  assert.ok(Math.abs(payload.issuedAt - Date.now() / 1000) < 60, "a fresh issuedAt");
  assert.match(payload.nonce, /^[A-Za-z0-9_-]{16,128}$/);
  assert.match(html, /<script>document\.getElementById\("launch"\)\.submit\(\);<\/script>/);
  assert.match(html, /<button type="submit">Launch<\/button>/, "a button without scripts");
});

Deno.test("deno task sign --open refuses a value that is not a launch URL", async () => {
  const out = await sign(["--open", "demo"]);
  assert.equal(out.code, 2);
  assert.match(new TextDecoder().decode(out.stderr), /--open needs the launch URL/);
  assert.equal(new TextDecoder().decode(out.stdout), "", "no page written");
});
