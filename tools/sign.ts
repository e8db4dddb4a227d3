/**
 * `deno task sign [--key <api key>] [--post <launch url> | --open <launch url>] [--exact]
 * [payload.json]`: prints the signed_request of a payload JSON file (or stdin). The key comes
 * from --key or PORTAL_API_KEY. A fresh `issuedAt` and a random `nonce` are added at the top
 * level (replay protection) unless the payload has either, or --exact signs the text exactly as
 * given. With --post, it submits the form (Accept: application/json) and prints the response.
 * With --open, it writes a local HTML page whose form posts it to the launch URL by itself (open
 * it in a browser: the portal opens as from a host page) and prints the page's path.
 */
import { resolve } from "node:path";
import { signPayload } from "../server/launch/signed_request.ts";
import { freshnessFields, SIGNED_REQUEST_FIELD } from "../server/launch/contract.ts";

const VALUED = new Set(["--key", "--post", "--open"]);
const USAGE =
  "usage: deno task sign [--key <api key>] [--post <launch url> | --open <launch url>] " +
  "[--exact] [payload.json]";

function arg(name: string): string | undefined {
  const i = Deno.args.indexOf(name);
  return i >= 0 ? Deno.args[i + 1] : undefined;
}

const key = arg("--key") ?? Deno.env.get("PORTAL_API_KEY");
const postUrl = arg("--post");
const openUrl = arg("--open");
const exact = Deno.args.includes("--exact");
const file = Deno.args.filter((a, i) => !a.startsWith("--") && !VALUED.has(Deno.args[i - 1]))[0];
if (!key) {
  console.error(
    `${USAGE}\nThe API key comes from --key or the PORTAL_API_KEY environment variable.`,
  );
  Deno.exit(2);
}
// `deno task` runs in the repository's root and names the caller's directory in INIT_CWD (unless
// it was already set, by a parent task say): a relative path is tried there, then here.
function initCwd(): string | undefined {
  const granted = Deno.permissions.querySync({ name: "env", variable: "INIT_CWD" }).state;
  return granted === "granted" ? Deno.env.get("INIT_CWD") : undefined;
}
const paths = file
  ? [...new Set([initCwd(), Deno.cwd()].flatMap((dir) => dir ? [resolve(dir, file)] : []))]
  : [];
let text = file ? undefined : await new Response(Deno.stdin.readable).text();
for (const path of paths) {
  try {
    text = await Deno.readTextFile(path);
    break;
  } catch (err) {
    if (!(err instanceof Deno.errors.NotFound)) throw err;
  }
}
if (text === undefined) {
  console.error(
    `${paths.join(" or ")}: no such file. Give the launch payload's JSON file, or pipe it in.`,
  );
  Deno.exit(2);
}
let payload: unknown;
try {
  payload = JSON.parse(text);
} catch (err) {
  console.error(`${file ?? "stdin"} is not JSON: ${(err as Error).message}`);
  Deno.exit(2);
}
function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
const fresh = !exact && isObject(payload) && !("issuedAt" in payload) && !("nonce" in payload);
const signed = await signPayload(
  fresh && isObject(payload) ? JSON.stringify({ ...payload, ...freshnessFields() }) : text.trim(),
  key,
);
/** Text for an HTML attribute value. */
function attr(text: string): string {
  return text.replaceAll("&", "&amp;").replaceAll('"', "&quot;").replaceAll("<", "&lt;");
}

/** A page whose form posts `value` to `url` as soon as it loads (a button without scripts). */
function launchPage(url: string, value: string): string {
  return `<!doctype html>
<html lang="en">
<meta charset="utf-8">
<title>Launching the portal</title>
<form id="launch" method="post" action="${attr(url)}">
  <input type="hidden" name="${SIGNED_REQUEST_FIELD}" value="${attr(value)}">
  <p>Signed for one launch, valid for a few minutes. <button type="submit">Launch</button></p>
</form>
<script>document.getElementById("launch").submit();</script>
</html>
`;
}

if (openUrl) {
  if (!/^https?:\/\//.test(openUrl)) {
    console.error(`--open needs the launch URL (http:// or https://), got ${openUrl}\n${USAGE}`);
    Deno.exit(2);
  }
  const path = await Deno.makeTempFile({ prefix: "portal-launch-", suffix: ".html" });
  await Deno.writeTextFile(path, launchPage(openUrl, signed));
  console.log(path);
} else if (!postUrl) {
  console.log(signed);
} else {
  const res = await fetch(postUrl, {
    method: "POST",
    headers: { Accept: "application/json" },
    body: new URLSearchParams({ [SIGNED_REQUEST_FIELD]: signed }),
  });
  console.log(`HTTP ${res.status}`);
  console.log(await res.text());
  Deno.exit(res.ok ? 0 : 1);
}
