/**
 * `deno task sign [--key <api key>] [--post <launch url>] [--exact] [payload.json]`: prints the
 * signed_request of a payload JSON file (or stdin). The key comes from --key or PORTAL_API_KEY.
 * A fresh `issuedAt` and a random `nonce` are added at the top level (replay protection) unless
 * the payload has either, or --exact signs the text exactly as given. With --post, it submits the
 * form (Accept: application/json) and prints the response.
 */
import { signPayload } from "../server/launch/signed_request.ts";
import { freshnessFields, SIGNED_REQUEST_FIELD } from "../server/launch/contract.ts";

const VALUED = new Set(["--key", "--post"]);

function arg(name: string): string | undefined {
  const i = Deno.args.indexOf(name);
  return i >= 0 ? Deno.args[i + 1] : undefined;
}

const key = arg("--key") ?? Deno.env.get("PORTAL_API_KEY");
const postUrl = arg("--post");
const exact = Deno.args.includes("--exact");
const file = Deno.args.filter((a, i) => !a.startsWith("--") && !VALUED.has(Deno.args[i - 1]))[0];
if (!key) {
  console.error(
    "usage: deno task sign [--key <api key>] [--post <launch url>] [--exact] [payload.json]\n" +
      "The API key comes from --key or the PORTAL_API_KEY environment variable.",
  );
  Deno.exit(2);
}
const text = file ? await Deno.readTextFile(file) : await new Response(Deno.stdin.readable).text();
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
if (!postUrl) {
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
