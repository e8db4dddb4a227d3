/**
 * `deno task sign [--key <api key>] [--post <launch url>] [payload.json]`: prints the signed_request
 * of a payload JSON file (or stdin). The key comes from --key or PORTAL_API_KEY. With --post, it
 * submits the form (Accept: application/json) and prints the response.
 */
import { signPayload } from "../server/launch/signed_request.ts";

function arg(name: string): string | undefined {
  const i = Deno.args.indexOf(name);
  return i >= 0 ? Deno.args[i + 1] : undefined;
}

const key = arg("--key") ?? Deno.env.get("PORTAL_API_KEY");
const postUrl = arg("--post");
const file =
  Deno.args.filter((a, i) => !a.startsWith("--") && !Deno.args[i - 1]?.startsWith("--"))[0];
if (!key) {
  console.error(
    "usage: deno task sign [--key <api key>] [--post <launch url>] [payload.json]\n" +
      "The API key comes from --key or the PORTAL_API_KEY environment variable.",
  );
  Deno.exit(2);
}
const text = file ? await Deno.readTextFile(file) : await new Response(Deno.stdin.readable).text();
try {
  JSON.parse(text);
} catch (err) {
  console.error(`${file ?? "stdin"} is not JSON: ${(err as Error).message}`);
  Deno.exit(2);
}
const signed = await signPayload(text.trim(), key);
if (!postUrl) {
  console.log(signed);
} else {
  const res = await fetch(postUrl, {
    method: "POST",
    headers: { Accept: "application/json" },
    body: new URLSearchParams({ signed_request: signed }),
  });
  console.log(`HTTP ${res.status}`);
  console.log(await res.text());
  Deno.exit(res.ok ? 0 : 1);
}
