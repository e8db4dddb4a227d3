/**
 * Shutdown of the real process (server/ops/shutdown.ts): on SIGTERM /readyz says `draining` at
 * once while the listener still accepts, requests in flight finish, kept-alive connections are
 * told `Connection: close`, and the process exits 0 within SHUTDOWN_TIMEOUT_MS.
 */
import assert from "node:assert/strict";
import { type Running, startProcess } from "../../helpers/process.ts";
import { RawConnection } from "../../helpers/raw_http.ts";
import { waitUntil } from "../../helpers/crm_server.ts";
import { backends } from "../../helpers/db.ts";
import { prepareDatabase } from "./fixture.ts";

const opts = { sanitizeOps: false, sanitizeResources: false };

/** Runs `body` with a process on a fresh database (PostgreSQL when configured); cleans up. */
async function withProcess(
  env: Record<string, string>,
  body: (running: Running) => Promise<void>,
): Promise<void> {
  const db = await prepareDatabase(backends.at(-1)!);
  try {
    const running = await startProcess({
      ...db.env,
      BOOTSTRAP_CLIENT_ID: "ops",
      BOOTSTRAP_CLIENT_SECRET: "s".repeat(40),
      ...env,
    });
    try {
      await body(running);
    } catch (err) {
      console.error(running.output());
      throw err;
    } finally {
      try {
        running.process.kill("SIGKILL");
      } catch { /* already gone */ }
      await running.process.status;
    }
  } finally {
    await db.close();
  }
}

/** GET `path` on a new connection. */
async function getFresh(port: number, path: string) {
  const conn = await RawConnection.open(port);
  try {
    return await conn.get(path);
  } finally {
    conn.close();
  }
}

/** True once 127.0.0.1:`port` refuses connections. */
async function refuses(port: number): Promise<boolean> {
  try {
    (await Deno.connect({ hostname: "127.0.0.1", port })).close();
    return false;
  } catch (err) {
    if (err instanceof Deno.errors.ConnectionRefused) return true;
    // Connected into the backlog of a listener that closed before accepting it: the kernel
    // resets it. The listener is closing; the next try is refused.
    if (err instanceof Deno.errors.ConnectionReset) return false;
    throw err;
  }
}

/** Waits for the exit; its code and the time since `since`. */
async function exited(running: Running, since: number): Promise<{ code: number; ms: number }> {
  const { code } = await running.process.status;
  return { code, ms: performance.now() - since };
}

Deno.test(
  "shutdown: /readyz answers 503 draining at once on SIGTERM; the listener accepts until the drain ends",
  opts,
  () =>
    withProcess({ SHUTDOWN_DRAIN_MS: "2000", SHUTDOWN_TIMEOUT_MS: "8000" }, async (running) => {
      const before = await getFresh(running.port, "/readyz");
      assert.equal(before.status, 200);
      const signalled = performance.now();
      running.process.kill("SIGTERM");
      const draining = await waitUntil(
        async () => {
          const res = await getFresh(running.port, "/readyz");
          return res.status === 503 && res;
        },
        "/readyz to say draining",
        2_000,
      );
      const flipMs = performance.now() - signalled;
      assert.ok(flipMs < 1_000, `readyz said draining after ${Math.round(flipMs)} ms`);
      assert.deepEqual(JSON.parse(draining.body), { status: "draining" });
      // A new connection is still served while the drain lasts.
      const health = await getFresh(running.port, "/healthz");
      assert.ok(performance.now() - signalled < 2_000, "still inside the drain");
      assert.equal(health.status, 200);
      assert.equal(health.headers.connection, "close");
      await waitUntil(() => refuses(running.port), "the listener to close", 5_000);
      const closedMs = performance.now() - signalled;
      assert.ok(closedMs >= 1_900, `closed after ${Math.round(closedMs)} ms, before the drain`);
      const { code, ms } = await exited(running, signalled);
      assert.equal(code, 0);
      assert.ok(ms < 8_000, `exited after ${Math.round(ms)} ms`);
    }),
);

Deno.test(
  "shutdown: a request in flight at SIGTERM completes after the drain; then the listener closes",
  opts,
  () =>
    withProcess({ SHUTDOWN_DRAIN_MS: "300", SHUTDOWN_TIMEOUT_MS: "10000" }, async (running) => {
      const body = "grant_type=client_credentials&client_id=ops&client_secret=wrong";
      const conn = await RawConnection.open(running.port);
      try {
        // The headers and part of the body: the handler waits for the rest.
        await conn.send(
          "POST /api/v1/oauth2/token HTTP/1.1\r\nHost: 127.0.0.1\r\n" +
            "Content-Type: application/x-www-form-urlencoded\r\n" +
            `Content-Length: ${body.length}\r\n\r\n${body.slice(0, 20)}`,
        );
        const signalled = performance.now();
        running.process.kill("SIGTERM");
        // Past the drain, the request still waits for its body.
        await new Promise((r) => setTimeout(r, 1_000));
        await conn.send(body.slice(20));
        const res = await conn.response();
        assert.equal(res.status, 400, res.body);
        assert.equal(JSON.parse(res.body).error, "invalid_client");
        assert.equal(res.headers.connection, "close");
        await waitUntil(() => refuses(running.port), "the listener to close", 3_000);
        const { code, ms } = await exited(running, signalled);
        assert.equal(code, 0);
        assert.ok(ms < 10_000, `exited after ${Math.round(ms)} ms`);
      } finally {
        conn.close();
      }
    }),
);

Deno.test(
  "shutdown: a kept-alive connection gets Connection: close on its next response, then is closed",
  opts,
  () =>
    withProcess({ SHUTDOWN_DRAIN_MS: "1500", SHUTDOWN_TIMEOUT_MS: "8000" }, async (running) => {
      const conn = await RawConnection.open(running.port);
      try {
        const first = await conn.get("/healthz");
        assert.equal(first.status, 200);
        assert.equal(first.headers.connection, undefined, "kept alive before the signal");
        running.process.kill("SIGTERM");
        await waitUntil(
          async () => (await getFresh(running.port, "/readyz")).status === 503,
          "/readyz to say draining",
          2_000,
        );
        const second = await conn.get("/healthz");
        assert.equal(second.status, 200);
        assert.equal(second.headers.connection, "close");
        // A client that honours the header closes the connection now; Deno.serve does not close
        // it for the header (denoland/deno#9411), but when the drain ends, idle ones are closed.
        assert.ok(await conn.closedByServer(4_000), "the server closed the connection");
        assert.equal((await running.process.status).code, 0);
      } finally {
        conn.close();
      }
    }),
);
