/**
 * The release's one entry: `serve` (the default) starts the service, `migrate [--check]` applies
 * the migrations alone (tools/migrate.ts), `version` prints the version. Run by
 * bin/portal-launcher, and the entry of the single executable of `deno task release --compile`.
 */
import { VERSION } from "../server/config.ts";

const USAGE =
  "usage: portal-launcher [serve [--host H] [--port P] | migrate [--check] | version]\n" +
  "  (bin/portal-launcher of a release directory also runs: backup [file], " +
  "restore <file> [--force], migrate-to-postgres <url>)";

const [command = "serve", ...args] = Deno.args;
if (command === "serve") {
  // server/main.ts reads its flags (--host, --port) after the command word itself.
  await import("../server/main.ts");
} else if (command === "migrate") {
  const { main } = await import("./migrate.ts");
  Deno.exit(await main(args));
} else if (command === "version" && !args.length) {
  console.log(VERSION);
} else if (["help", "-h", "--help"].includes(command)) {
  console.log(USAGE);
} else {
  console.error(USAGE);
  Deno.exit(2);
}
