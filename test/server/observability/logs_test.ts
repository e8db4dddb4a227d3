/**
 * The log of a real process: one JSON object per line from the first line to the last, request
 * lines with the launch id and error code, a restart without info-level database notices, and a
 * human-readable banner only on a terminal (a pseudo-terminal made by util-linux `script`).
 */
import assert from "node:assert/strict";
import { waitUntil } from "../../helpers/crm_server.ts";
import { FLAGS, freePort, MAIN, startRecordOf } from "../../helpers/process.ts";
import { uniqueId } from "../../helpers/shared.ts";
import { prepareDatabase } from "../ops/fixture.ts";
import { backends } from "../../helpers/db.ts";
import { type Observed, startObserved, uniquePayload } from "./fixture.ts";

const opts = { sanitizeOps: false, sanitizeResources: false };

// deno-lint-ignore no-explicit-any
type Line = Record<string, any>;

/** Every line of `text` parsed as JSON (fails naming the first line that is not). */
function jsonLines(text: string): Line[] {
  return text.split("\n").filter((l) => l !== "").map((line) => {
    try {
      const parsed = JSON.parse(line);
      assert.equal(typeof parsed, "object");
      return parsed;
    } catch {
      throw new Error(`not a JSON record: ${line}`);
    }
  });
}

/** Stops `observed` and answers its whole output. */
async function stopped(observed: Observed): Promise<string> {
  assert.equal(await observed.stop(), 0);
  return observed.running.output();
}

Deno.test({
  name: "logs: every line is one JSON object; request lines carry launchId and code",
  ...opts,
  async fn() {
    const observed = await startObserved({ LOG_LEVEL: "info" });
    let output = "";
    let launchId = 0;
    try {
      const app = await observed.createApp();
      const ok = await observed.launch(app, uniquePayload(uniqueId("R")));
      assert.equal(ok.status, 200);
      launchId = (await ok.json()).launchId;
      const refused = await observed.launch(app, {}, { signedRequest: "AAAA.eyJ9" });
      assert.equal(refused.status, 401);
      await refused.body?.cancel();
      // A browser's refusal is answered by the launch route's own error page.
      const page = await fetch(`${observed.base}/portal/api/auth/app/${app.appName}`, {
        method: "POST",
        headers: { Accept: "text/html" },
        body: new URLSearchParams({ signed_request: "AAAA.eyJ9" }),
      });
      assert.equal(page.status, 401);
      await page.body?.cancel();
    } finally {
      output = await stopped(observed);
    }
    const lines = jsonLines(output);
    assert.ok(lines.length > 5 && lines.every((l) => l.time && l.level && l.msg));
    const launches = lines.filter((l) => l.msg === "request" && l.path.startsWith("/portal/api"));
    assert.equal(launches.length, 3);
    assert.equal(launches[0].launchId, launchId, "the launch the response names");
    assert.equal(launches[0].code, undefined);
    // Refusals of a known app are in the launch log too: each line names its record.
    for (const [i, refusal] of launches.slice(1).entries()) {
      assert.equal(refusal.code, "invalid_signature");
      assert.ok(refusal.launchId > launches[i].launchId);
    }
    const tokenLine = lines.find((l) => l.msg === "request" && l.path === "/api/v1/oauth2/token");
    assert.equal(tokenLine?.status, 200);
    assert.equal(tokenLine?.code, undefined);
  },
});

Deno.test({
  name: "logs: a restart logs no database notice at info (they are debug lines)",
  ...opts,
  async fn() {
    const prepared = await prepareDatabase(backends.at(-1)!);
    try {
      // The first start on this database may migrate it; the next ones are restarts.
      await stopped(await startObserved({ LOG_LEVEL: "warn" }, prepared));
      const info = await startObserved({ LOG_LEVEL: "info" }, prepared);
      const infoLines = jsonLines(await stopped(info));
      assert.deepEqual(infoLines.filter((l) => l.msg === "database notice"), []);
      assert.ok(infoLines.some((l) => l.msg === "listening"));
      const debug = await startObserved({ LOG_LEVEL: "debug" }, prepared);
      const notices = jsonLines(await stopped(debug)).filter((l) => l.msg === "database notice");
      assert.ok(notices.length >= 1, "the restart's notices are there, at debug");
      for (const notice of notices) {
        assert.equal(notice.level, "debug");
        assert.equal(notice.code, "42P07");
        assert.match(notice.message, /already exists, skipping/);
      }
    } finally {
      await prepared.close();
    }
  },
});

Deno.test({
  name: "logs: stdout that is not a terminal gets the start as one JSON record",
  ...opts,
  async fn() {
    const observed = await startObserved({ LOG_LEVEL: "warn" });
    const output = await stopped(observed);
    // LOG_LEVEL=warn: the start record is written all the same (what the operator needs once).
    const record = startRecordOf(output);
    assert.equal(record.level, "info");
    assert.equal(record.url, observed.base);
    assert.match(record.launch, /^POST http:\/\/\S+\/portal\/api\/auth\/app\/<app_name>$/);
    assert.doesNotMatch(output, /Portal Launcher \S+ listening on/);
  },
});

Deno.test({
  name: "logs: a terminal gets the human-readable banner instead",
  ...opts,
  async fn() {
    const prepared = await prepareDatabase(backends.at(-1)!);
    const port = freePort();
    const command = [Deno.execPath(), "run", ...FLAGS, MAIN].join(" ");
    // `script` runs the service on a pseudo-terminal; SIGTERM to it stops the service too.
    const child = new Deno.Command("script", {
      args: ["-qefc", command, "/dev/null"],
      env: { ...prepared.env, PORT: String(port), SHUTDOWN_DRAIN_MS: "0", LOG_LEVEL: "warn" },
      stdin: "piped",
      stdout: "piped",
      stderr: "piped",
    }).spawn();
    let text = "";
    const pump = (async () => {
      for await (const chunk of child.stdout) text += new TextDecoder().decode(chunk);
    })();
    try {
      await waitUntil(() => text.includes("admin API:"), "the banner", 60_000);
      assert.match(
        text,
        new RegExp(`Portal Launcher \\S+ listening on http://127\\.0\\.0\\.1:${port} `),
      );
      assert.match(text, /\n {2}launch: +POST \S+\/portal\/api\/auth\/app\/<app_name>/);
      assert.doesNotMatch(text, /"msg":"listening"/);
    } finally {
      child.kill("SIGTERM");
      await child.status;
      await pump;
      await child.stderr.cancel();
      await prepared.close();
    }
  },
});

Deno.test({
  name: "logs: a start that fails says why in one JSON error record on stderr",
  ...opts,
  async fn() {
    const run = async (env: Record<string, string>) => {
      const out = await new Deno.Command(Deno.execPath(), {
        args: ["run", ...FLAGS, MAIN],
        env: { HOME: Deno.env.get("HOME") ?? "/tmp", SHUTDOWN_DRAIN_MS: "0", ...env },
        clearEnv: true,
        signal: AbortSignal.timeout(60_000),
      }).output();
      assert.equal(out.code, 1);
      const lines = jsonLines(new TextDecoder().decode(out.stderr));
      assert.equal(lines.length, 1);
      assert.equal(lines[0].level, "error");
      jsonLines(new TextDecoder().decode(out.stdout));
      return lines[0].msg as string;
    };
    assert.match(await run({ PORT: "http" }), /^Invalid configuration:\n {2}- PORT: expected/);
    const taken = Deno.listen({ hostname: "127.0.0.1", port: 0 });
    const prepared = await prepareDatabase(backends.at(-1)!);
    try {
      const port = (taken.addr as Deno.NetAddr).port;
      const msg = await run({ ...prepared.env, PORT: String(port), LOG_LEVEL: "warn" });
      assert.match(
        msg,
        new RegExp(`^cannot listen on 127\\.0\\.0\\.1:${port}: Address already in use`),
      );
    } finally {
      taken.close();
      await prepared.close();
    }
  },
});
