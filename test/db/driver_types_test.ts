/**
 * The driver's array-type fetch on a new connection (vendor/postgres/src/connection.js, patched):
 * a connection lost while that query was out rejected it where nothing listened, an unhandled
 * rejection, which ends a Deno process. A fake server answers the startup, takes the fetch's query
 * and closes: the caller's query fails, and nothing else does.
 */
import assert from "node:assert/strict";
import { connect } from "../../db/mod.ts";

/** A backend message: its type byte, length and body. */
function message(type: string, body: Uint8Array): Uint8Array {
  const out = new Uint8Array(5 + body.length);
  out[0] = type.charCodeAt(0);
  new DataView(out.buffer).setInt32(1, 4 + body.length);
  out.set(body, 5);
  return out;
}

/**
 * Accepts connections; answers each startup with AuthenticationOk and ReadyForQuery, then closes
 * the connection as soon as the client sends anything more (the type fetch's query).
 */
function dyingServer(): { port: number; queries: () => number; close: () => void } {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  let queries = 0;
  (async () => {
    for await (const conn of listener) {
      (async () => {
        const buf = new Uint8Array(8192);
        try {
          if ((await conn.read(buf)) === null) return; // the StartupMessage
          await conn.write(message("R", new Uint8Array([0, 0, 0, 0])));
          await conn.write(message("Z", new TextEncoder().encode("I")));
          if ((await conn.read(buf)) !== null) queries++;
        } catch { /* the client went first */ }
        conn.close();
      })();
    }
  })().catch(() => {});
  return {
    port: (listener.addr as Deno.NetAddr).port,
    queries: () => queries,
    close: () => listener.close(),
  };
}

Deno.test("driver: a connection lost during its type fetch fails the query, nothing unhandled", async () => {
  const unhandled: unknown[] = [];
  const note = (e: PromiseRejectionEvent) => {
    e.preventDefault();
    unhandled.push(e.reason);
  };
  globalThis.addEventListener("unhandledrejection", note);
  const server = dyingServer();
  try {
    // The driver connects again after each loss, so the first query waits out the acquire
    // timeout (DATABASE_UNAVAILABLE); each connection lost its type fetch on the way.
    await assert.rejects(
      connect({
        databaseUrl: `postgres://u@127.0.0.1:${server.port}/d`,
        max: 1,
        acquireTimeoutMs: 300,
        connectTimeoutMs: 5_000,
      }),
      (err: Error & { code?: string }) => err.code === "DATABASE_UNAVAILABLE",
    );
    assert.ok(server.queries() >= 1, "a type fetch's query reached the server");
    // Unhandled rejections are reported once the microtasks have run.
    for (let i = 0; i < 5; i++) await new Promise((r) => setTimeout(r, 10));
    assert.deepEqual(unhandled.map(String), []);
  } finally {
    globalThis.removeEventListener("unhandledrejection", note);
    server.close();
  }
});
