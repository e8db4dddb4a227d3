/**
 * The driver's socket on Deno.connect (db/deno_socket.ts): which URLs use it, results of any
 * size and pipelined queries intact on both backends, a refused connection failing every query
 * instead of hanging, a connection the server ends replaced by the next query, and the pool
 * closing.
 */
import assert from "node:assert/strict";
import postgres from "postgres";
import { backends, TEST_DATABASE_URL } from "../helpers/db.ts";
import { denoSocketOption, usesDenoSocket } from "../../db/deno_socket.ts";
import { freePort } from "../helpers/process.ts";

Deno.test("usesDenoSocket: plain single-host URLs only", () => {
  const plain = "postgres://u@db.internal:5432/app";
  assert.equal(usesDenoSocket(plain), true);
  assert.equal(usesDenoSocket(`${plain}?sslmode=disable`), true);
  assert.equal(usesDenoSocket(`${plain}?application_name=x`), true);
  for (const tls of ["require", "prefer", "verify-full"]) {
    assert.equal(usesDenoSocket(`${plain}?sslmode=${tls}`), false, tls);
  }
  assert.equal(usesDenoSocket(`${plain}?ssl=true`), false);
  // The driver reads PGSSL when the URL says nothing (not PGSSLMODE).
  assert.equal(usesDenoSocket(plain, { PGSSL: "require" }), false);
  assert.equal(usesDenoSocket(plain, { PGSSL: "disable" }), true);
  assert.equal(usesDenoSocket(`${plain}?sslmode=disable`, { PGSSL: "require" }), true);
  assert.equal(usesDenoSocket("postgres://u@db1:5432,db2:5432/app"), false);
});

for (const backend of backends) {
  Deno.test(`driver socket (${backend.name}): large and many rows, pipelined queries`, async () => {
    const db = await backend.open();
    try {
      assert.equal(
        typeof (db.sql as unknown as { options: { socket?: unknown } }).options.socket,
        "function",
      );
      // 300 KB in one value: spans several reads and slabs.
      const [big] = await db.sql`select repeat('abcdefghij', 30000) || 'é' as text`;
      assert.equal(big.text, "abcdefghij".repeat(30000) + "é");
      const rows = await db.sql`select g as n, repeat('x', g % 300) as pad
        from generate_series(1, 5000) g`;
      assert.equal(rows.length, 5000);
      rows.forEach((r, i) => {
        assert.equal(r.n, i + 1);
        assert.equal(r.pad.length, (i + 1) % 300);
      });
      const answers = await Promise.all(
        Array.from(
          { length: 200 },
          (_, i) => db.sql`select ${i}::int as i, repeat('y', ${i * 50}) as s`,
        ),
      );
      answers.forEach(([r], i) => {
        assert.equal(r.i, i);
        assert.equal(r.s.length, i * 50);
      });
    } finally {
      await db.close();
    }
  });
}

Deno.test("driver socket: a refused connection fails each query, and the pool still closes", async () => {
  const port = freePort(); // nothing listens there
  const sql = postgres(`postgres://postgres@127.0.0.1:${port}/none`, {
    max: 1,
    ...denoSocketOption,
    onnotice: () => {},
  });
  for (let i = 0; i < 2; i++) {
    await assert.rejects(sql`select 1`, (err: Error) => {
      assert.equal(err.name, "ConnectionRefused");
      return true;
    });
  }
  await sql.end({ timeout: 1 });
});

Deno.test("driver socket: a connection that fails at once (no Unix socket there) fails each query", async () => {
  const dir = await Deno.makeTempDir();
  // The driver connects to <host>/.s.PGSQL.<port> when the host is a directory.
  const sql = postgres({ host: dir, port: 5432, max: 1, ...denoSocketOption, onnotice: () => {} });
  try {
    for (let i = 0; i < 2; i++) {
      await assert.rejects(sql`select 1`, (err: Error) => {
        assert.equal(err.name, "NotFound");
        return true;
      });
    }
  } finally {
    await sql.end({ timeout: 1 });
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("driver socket: asked for TLS, it refuses with a clear error", async () => {
  const sql = postgres("postgres://postgres@127.0.0.1:1/none?sslmode=require", {
    max: 1,
    ...denoSocketOption,
    onnotice: () => {},
  });
  await assert.rejects(sql`select 1`, /DenoSocket has no TLS/);
  await sql.end({ timeout: 1 });
});

Deno.test({
  name: "driver socket (postgres): TCP keep-alive is on",
  ignore: !TEST_DATABASE_URL || Deno.build.os !== "linux",
  async fn() {
    const sql = postgres(TEST_DATABASE_URL, { max: 1, ...denoSocketOption, onnotice: () => {} });
    try {
      const [{ port }] = await sql`select inet_client_port() as port`;
      // /proc/net/tcp: local address is column 1 (hex port after ':'), the timer column 5 is
      // "<kind>:<expires>", kind 2 being the keep-alive timer.
      const hexPort = `:${port.toString(16).toUpperCase().padStart(4, "0")}`;
      const row = async () => {
        const tables = await Promise.all(
          ["/proc/net/tcp", "/proc/net/tcp6"].map((f) => Deno.readTextFile(f).catch(() => "")),
        );
        return tables.join("\n").split("\n").map((l) => l.trim().split(/\s+/))
          .find((c) => c[1]?.endsWith(hexPort));
      };
      let mine = await row();
      // Timer kind 01 is the retransmit timer of data still unacknowledged (a loaded machine):
      // the keep-alive timer shows once the connection is idle again.
      for (let i = 0; i < 40 && mine?.[5]?.startsWith("01:"); i++) {
        await new Promise((r) => setTimeout(r, 25));
        mine = await row();
      }
      assert.ok(mine, `connection from port ${port} not found in /proc/net/tcp`);
      assert.equal(mine[5].split(":")[0], "02", `timer ${mine[5]}: keep-alive not armed`);
    } finally {
      await sql.end({ timeout: 5 });
    }
  },
});

Deno.test({
  name: "driver socket (postgres): a connection the server ends is replaced by the next query",
  ignore: !TEST_DATABASE_URL,
  async fn() {
    let sawClose = () => {};
    const closed = new Promise<void>((resolve) => sawClose = resolve);
    const sql = postgres(TEST_DATABASE_URL, {
      max: 1,
      ...denoSocketOption,
      onnotice: () => {},
      onclose: () => sawClose(),
    });
    const admin = postgres(TEST_DATABASE_URL, { max: 1, onnotice: () => {} });
    try {
      const [{ pid }] = await sql`select pg_backend_pid() as pid`;
      await admin`select pg_terminate_backend(${pid})`;
      await closed; // the driver saw the socket close
      const [{ pid: next }] = await sql`select pg_backend_pid() as pid`;
      assert.notEqual(next, pid);
    } finally {
      await sql.end({ timeout: 5 });
      await admin.end();
    }
  },
});
