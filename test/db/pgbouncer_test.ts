/**
 * The service through a real PgBouncer in transaction mode (Debian's `pgbouncer`, started here on
 * a free loopback port in front of the test PostgreSQL) with DATABASE_PREPARE=false: migrations,
 * launches, token requests, REST reads and writes, and callback delivery to a mock CRM, with no
 * launch, event or callback lost or doubled.
 */
import assert from "node:assert/strict";
import postgres from "postgres";
import { connect } from "../../db/mod.ts";
import { type Backend, TEST_DATABASE_URL, type TestDatabase } from "../helpers/db.ts";
import { appClientToken } from "../helpers/launch.ts";
import { freePort } from "../helpers/process.ts";
import { uniqueId } from "../helpers/shared.ts";
import { callbackFixtures, startCrmServer, waitUntil } from "../server/callbacks/fixture.ts";

/** Debian installs it in /usr/sbin, which a non-root PATH may lack. */
const PGBOUNCER = (() => {
  try {
    return Deno.statSync("/usr/sbin/pgbouncer").isFile ? "/usr/sbin/pgbouncer" : "pgbouncer";
  } catch {
    return "pgbouncer";
  }
})();

/** A PgBouncer process of this test. */
interface Bouncer {
  port: number;
  stop(): Promise<void>;
}

/** Starts PgBouncer (transaction pooling, no authentication) in front of `target`. */
async function startBouncer(target: URL): Promise<Bouncer> {
  const dir = await Deno.makeTempDir({ prefix: "pl-pgbouncer-" });
  await Deno.chmod(dir, 0o755);
  const port = freePort();
  const ini = `${dir}/pgbouncer.ini`;
  await Deno.writeTextFile(
    ini,
    [
      "[databases]",
      `* = host=${target.hostname} port=${target.port || 5432} user=${
        decodeURIComponent(target.username) || "postgres"
      }`,
      "[pgbouncer]",
      "listen_addr = 127.0.0.1",
      `listen_port = ${port}`,
      "unix_socket_dir =",
      "auth_type = any",
      "pool_mode = transaction",
      "default_pool_size = 4",
      "max_client_conn = 100",
      // The service sends statement_timeout as a startup parameter; PgBouncer refuses unknown
      // ones unless told to ignore them (docs/operations.md#pgbouncer).
      "ignore_startup_parameters = statement_timeout",
    ].join("\n") + "\n",
  );
  await Deno.chmod(ini, 0o644);
  // PgBouncer refuses to run as root: it is told to switch to the postgres account then.
  const args = Deno.uid() === 0 ? ["-u", "postgres", ini] : [ini];
  let child: Deno.ChildProcess;
  try {
    child = new Deno.Command(PGBOUNCER, { args, stdout: "null", stderr: "piped" }).spawn();
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) {
      throw new Error("pgbouncer is not installed: apt-get install -y pgbouncer");
    }
    throw err;
  }
  const stderr = child.stderr.pipeThrough(new TextDecoderStream()).getReader();
  let log = "";
  const reading = (async () => {
    for (;;) {
      const { value, done } = await stderr.read();
      if (done) return;
      log += value;
    }
  })();
  const stop = async () => {
    try {
      child.kill("SIGTERM");
    } catch { /* already ended */ }
    await child.status;
    await reading;
    await Deno.remove(dir, { recursive: true });
  };
  try {
    await waitUntil(
      async () => {
        const status = await Promise.race([child.status, Promise.resolve(null)]);
        if (status) throw new Error(`pgbouncer exited ${status.code}: ${log}`);
        try {
          (await Deno.connect({ hostname: "127.0.0.1", port })).close();
          return true;
        } catch {
          return false;
        }
      },
      "pgbouncer to listen",
      10_000,
    );
  } catch (err) {
    await stop();
    throw err;
  }
  return { port, stop };
}

/** A fresh database behind a fresh PgBouncer; the service connects with prepare=false. */
function bouncedBackend(): Backend {
  return {
    name: "postgres",
    async open() {
      const admin = postgres(TEST_DATABASE_URL, { max: 1, onnotice: () => {} });
      const name = `pl_test_${crypto.randomUUID().replaceAll("-", "").slice(0, 16)}`;
      await admin.unsafe(`create database ${name}`);
      const direct = new URL(TEST_DATABASE_URL);
      direct.pathname = `/${name}`;
      const bouncer = await startBouncer(direct);
      const url = new URL(direct);
      url.hostname = "127.0.0.1";
      url.port = String(bouncer.port);
      const db = await connect({ databaseUrl: url.href, max: 8, prepare: false });
      const dataDir = await Deno.makeTempDir({ prefix: "pl-test-" });
      return {
        ...db,
        dataDir,
        url: url.href,
        async close() {
          await db.close();
          await bouncer.stop();
          await admin.unsafe(`drop database if exists ${name} with (force)`);
          await admin.end();
          await Deno.remove(dataDir, { recursive: true });
        },
      } satisfies TestDatabase;
    },
  };
}

const backend = bouncedBackend();
const fixture = callbackFixtures([backend]).get(backend)!;

Deno.test({
  name: "pgbouncer (transaction mode, prepare=false): launches, tokens, REST and callbacks",
  ignore: !TEST_DATABASE_URL,
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const f = await fixture();
    const crm = startCrmServer();
    try {
      const app = await f.app(crm, { callbackEvents: ["session.created", "session.closed"] });
      // Launches and token requests at once, 8 at a time: every statement of each launch goes
      // through whichever server connection PgBouncer hands out.
      const launches = await Promise.all(
        Array.from({ length: 24 }, (_, i) => f.launch(app, { referenceId: uniqueId(`R${i}`) })),
      );
      const tokens = await Promise.all(
        Array.from({ length: 12 }, () => appClientToken(f.svc, { ...app, apiKey: "" })),
      );
      assert.equal(new Set(tokens).size, 12);
      const sessionIds = launches.map((l) => l.sessionId as number);
      assert.equal(new Set(sessionIds).size, 24, "one session per launch");

      // REST: reads with the app's tokens, and a write that emits an event per session.
      for (const [i, id] of sessionIds.entries()) {
        const token = tokens[i % tokens.length];
        const read = await f.svc.api("GET", `/api/v1/sessions/${id}`, token);
        assert.equal(read.status, 200, await read.text());
        const closed = await f.svc.api("PATCH", `/api/v1/sessions/${id}`, f.admin, {
          status: "closed",
        });
        assert.equal(closed.status, 200, await closed.text());
      }
      const list = await f.svc.api("GET", "/api/v1/sessions?limit=100", tokens[0]);
      assert.equal(list.status, 200);
      assert.equal((await list.json()).items.length, 24);

      // Every event delivered exactly once: 24 created + 24 closed, no id twice.
      await crm.waitFor(48, 20_000);
      await waitUntil(
        async () => {
          const [{ n }] = await f.svc.db.sql`
          select count(*)::int as n from callback_events where status <> 'delivered'`;
          return n === 0;
        },
        "every event delivered",
        10_000,
      );
      const ids = crm.received.map((r) => r.headers["webhook-id"]);
      assert.equal(crm.received.length, 48, "no callback doubled");
      assert.equal(new Set(ids).size, 48);
      assert.ok(crm.received.every((r) => r.verified));
      const [{ events }] = await f.svc.db.sql`select count(*)::int as events from callback_events`;
      assert.equal(events, 48, "no event lost or doubled");
      const [{ logged }] = await f.svc.db.sql`
        select count(*)::int as logged from launches where outcome = 'ok'`;
      assert.equal(logged, 24);
    } finally {
      await crm.close();
    }
  },
});
