/**
 * The callbacks' HTTP client (server/callbacks/http_client.ts) against real sockets on loopback:
 * it connects to the address it is given, not to what the URL's name resolves to; TLS is checked
 * against the name; connections are reused, and a reused one the server closed is replaced once;
 * bodies are read by their framing; a malformed answer, a timeout and header injection fail.
 */
import assert from "node:assert/strict";
import { CallbackHttpClient, encodeRequest } from "../../../server/callbacks/http_client.ts";
import { NEXT_ADDRESS_AFTER_MS } from "../../../server/callbacks/address_race.ts";
import { ProtocolError } from "../../../server/callbacks/http1_reader.ts";

const fixtures = new URL("../../fixtures/tls/", import.meta.url);
const cert = Deno.readTextFileSync(new URL("callback.test.crt", fixtures));
const key = Deno.readTextFileSync(new URL("callback.test.key", fixtures));

const post = (body = "{}", signal?: AbortSignal, addresses: string[] | null = ["127.0.0.1"]) => ({
  method: "POST",
  headers: { "Content-Type": "application/json", "webhook-id": "msg_1" },
  body,
  signal,
  addresses,
});

/** A Deno.serve receiver that notes each request's Host, body and client port. */
function receiver(options: Partial<Deno.ServeTcpOptions & Deno.TlsCertifiedKeyPem> = {}) {
  const seen: { host: string | null; body: string; port: number }[] = [];
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {}, ...options },
    async (req, info) => {
      seen.push({
        host: req.headers.get("host"),
        body: await req.text(),
        port: (info.remoteAddr as Deno.NetAddr).port,
      });
      const url = new URL(req.url);
      if (url.pathname === "/chunked") {
        return new Response(
          new ReadableStream({
            start(c) {
              c.enqueue(new TextEncoder().encode("first "));
              c.enqueue(new TextEncoder().encode("second"));
              c.close();
            },
          }),
        );
      }
      if (url.pathname === "/empty") return new Response(null, { status: 204 });
      if (url.pathname === "/big") return new Response("x".repeat(100_000), { status: 500 });
      return new Response(`ok ${url.search}`, { status: 200, headers: { "x-a": "1" } });
    },
  );
  return { seen, port: server.addr.port, server };
}

/** A raw TCP server that answers each connection's requests with `answer(n)` (n counts all). */
function rawServer(answer: (n: number, conn: Deno.Conn) => Promise<void>) {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  let n = 0;
  let connections = 0;
  const conns: Deno.Conn[] = [];
  (async () => {
    for await (const conn of listener) {
      connections++;
      conns.push(conn);
      (async () => {
        const buf = new Uint8Array(65536);
        try {
          while ((await conn.read(buf)) !== null) await answer(++n, conn);
        } catch {
          // closed by the test
        }
      })();
    }
  })();
  return {
    port: (listener.addr as Deno.NetAddr).port,
    get connections() {
      return connections;
    },
    close() {
      listener.close();
      for (const c of conns) {
        try {
          c.close();
        } catch { /* closed */ }
      }
    },
  };
}

const write = (conn: Deno.Conn, text: string) => conn.write(new TextEncoder().encode(text));

Deno.test("http client: connects to the address given, sends the URL's host, reuses the connection", async () => {
  const r = receiver();
  const client = new CallbackHttpClient();
  try {
    // callback.test resolves nowhere: only the address given can be reached.
    const url = `http://callback.test:${r.port}/hook?a=1`;
    const first = await client.send(url, post('{"n":1}'));
    const second = await client.send(url, post('{"n":2}'));
    assert.equal(first.status, 200);
    assert.equal(first.snippet, "ok ?a=1");
    assert.equal(first.headers.get("x-a"), "1");
    assert.equal(second.status, 200);
    assert.deepEqual(r.seen.map((s) => [s.host, s.body]), [
      [`callback.test:${r.port}`, '{"n":1}'],
      [`callback.test:${r.port}`, '{"n":2}'],
    ]);
    assert.equal(r.seen[0].port, r.seen[1].port, "the second request used the first's connection");
    assert.equal(client.idleCount, 1);
  } finally {
    client.close();
    await r.server.shutdown();
  }
});

Deno.test("http client: tries the next address when one refuses", async () => {
  const r = receiver();
  const closed = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const refused = (closed.addr as Deno.NetAddr).port;
  closed.close();
  const client = new CallbackHttpClient();
  try {
    // The same port on 127.0.0.2 refuses (nothing listens there); 127.0.0.1 answers.
    const res = await client.send(
      `http://callback.test:${r.port}/`,
      post("{}", undefined, [
        "127.0.0.2",
        "127.0.0.1",
      ]),
    );
    assert.equal(res.status, 200);
    await assert.rejects(
      client.send(`http://callback.test:${refused}/`, post()),
      /cannot connect to callback\.test:\d+: .*refused/i,
    );
  } finally {
    client.close();
    await r.server.shutdown();
  }
});

Deno.test("http client: TLS is verified against the URL's name, not the address", async () => {
  const r = receiver({ cert, key });
  const client = new CallbackHttpClient({ caCerts: [cert] });
  const untrusting = new CallbackHttpClient();
  try {
    const res = await client.send(`https://callback.test:${r.port}/tls`, post());
    assert.equal(res.status, 200);
    // The same address under another name: the certificate does not name it.
    await assert.rejects(
      client.send(`https://other.test:${r.port}/tls`, post()),
      /cannot connect to other\.test:\d+: .*(certificate|NotValidForName)/i,
    );
    // The right name, but a certificate no trusted authority signed.
    await assert.rejects(
      untrusting.send(`https://callback.test:${r.port}/tls`, post()),
      /cannot connect to callback\.test:\d+: .*(certificate|UnknownIssuer)/i,
    );
    // A certificate that names its host only in its subject's CN, as browsers and fetch refuse.
    const cnOnly = Deno.readTextFileSync(new URL("cn-only.crt", fixtures));
    const legacy = receiver({
      cert: cnOnly,
      key: Deno.readTextFileSync(new URL("cn-only.key", fixtures)),
    });
    const trustingLegacy = new CallbackHttpClient({ caCerts: [cnOnly] });
    try {
      await assert.rejects(
        trustingLegacy.send(`https://callback.test:${legacy.port}/tls`, post()),
        /no subjectAltName/,
      );
    } finally {
      trustingLegacy.close();
      await legacy.server.shutdown();
    }
    assert.equal(r.seen.length, 1, "no request reached the server over an unverified connection");
  } finally {
    client.close();
    untrusting.close();
    await r.server.shutdown();
  }
});

Deno.test("http client: chunked, empty and large bodies; the snippet is the body's start", async () => {
  const r = receiver();
  const client = new CallbackHttpClient({ keep: 10 });
  try {
    const chunked = await client.send(`http://callback.test:${r.port}/chunked`, post());
    assert.equal(chunked.snippet, "first seco");
    const empty = await client.send(`http://callback.test:${r.port}/empty`, post());
    assert.equal(empty.status, 204);
    assert.equal(empty.snippet, null);
    const big = await client.send(`http://callback.test:${r.port}/big`, post());
    assert.equal(big.status, 500);
    assert.equal(big.snippet, "xxxxxxxxxx");
    // Every body was read to its end, so one connection carried all three.
    assert.equal(new Set(r.seen.map((s) => s.port)).size, 1);
  } finally {
    client.close();
    await r.server.shutdown();
  }
});

Deno.test("http client: a kept connection the server closed is dropped before use", async () => {
  // Answers each connection's first request, then closes it without a word.
  const s = rawServer(async (_n, conn) => {
    await write(conn, "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok");
    conn.close();
  });
  const client = new CallbackHttpClient();
  try {
    const url = `http://callback.test:${s.port}/`;
    assert.equal((await client.send(url, post())).status, 200);
    // Let the close reach the client: the idle connection is now stale.
    await new Promise((resolve) => setTimeout(resolve, 50));
    assert.equal((await client.send(url, post())).status, 200);
    assert.equal(s.connections, 2);
  } finally {
    client.close();
    s.close();
  }
});

Deno.test("http client: Connection: close, HTTP/1.0 and unframed bodies are not reused", async () => {
  const answers = [
    "HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 1\r\n\r\na",
    "HTTP/1.0 200 OK\r\nContent-Length: 1\r\n\r\nb",
  ];
  const s = rawServer(async (n, conn) => {
    if (n <= answers.length) return void await write(conn, answers[n - 1]);
    await write(conn, "HTTP/1.1 200 OK\r\n\r\nto the end");
    conn.close();
  });
  const client = new CallbackHttpClient();
  try {
    const url = `http://callback.test:${s.port}/`;
    const got = [];
    for (let i = 0; i < 3; i++) got.push((await client.send(url, post())).snippet);
    assert.deepEqual(got, ["a", "b", "to the end"]);
    assert.equal(s.connections, 3);
    assert.equal(client.idleCount, 0);
  } finally {
    client.close();
    s.close();
  }
});

Deno.test("http client: a malformed answer is a ProtocolError", async () => {
  const bad = [
    "HTTP/2 200 OK\r\n\r\n",
    "HTTP/1.1 200 OK\r\nContent-Length: 1, 2\r\n\r\n",
    "HTTP/1.1 200 OK\r\nbad header\r\n\r\n",
    "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n",
  ];
  const s = rawServer(async (n, conn) => {
    await write(conn, bad[n - 1]);
    conn.close();
  });
  const client = new CallbackHttpClient();
  try {
    for (const _ of bad) {
      await assert.rejects(
        client.send(`http://callback.test:${s.port}/`, post()),
        (err) => err instanceof ProtocolError,
      );
    }
  } finally {
    client.close();
    s.close();
  }
});

Deno.test("http client: an answer that never comes ends with the signal", async () => {
  const s = rawServer(async () => {});
  const client = new CallbackHttpClient();
  try {
    const signal = AbortSignal.timeout(100);
    await assert.rejects(
      client.send(`http://callback.test:${s.port}/`, post("{}", signal)),
      (err: Error) => err.name === "TimeoutError",
    );
    assert.equal(client.idleCount, 0);
  } finally {
    client.close();
    s.close();
  }
});

Deno.test("http client: header injection and bad methods are refused before sending", () => {
  const u = new URL("http://callback.test/");
  const base = { method: "POST", body: "", addresses: null };
  assert.throws(
    () => encodeRequest(u, { ...base, headers: { "x-a": "1\r\nx-injected: 2" } }),
    /invalid value in the x-a header/,
  );
  assert.throws(() => encodeRequest(u, { ...base, headers: { "x a": "1" } }), /invalid header/);
  assert.throws(
    () => encodeRequest(u, { ...base, method: "POST /x HTTP/1.1\r\n", headers: {} }),
    /invalid method/,
  );
  // The client frames the body itself: a Content-Length of the caller's is not sent twice. A
  // User-Agent and an Accept are sent unless given, as fetch sends them.
  const text = new TextDecoder().decode(
    encodeRequest(u, { ...base, body: "é", headers: { "Content-Length": "99", accept: "a/b" } }),
  );
  assert.equal(
    text,
    "POST / HTTP/1.1\r\nHost: callback.test\r\naccept: a/b\r\n" +
      "User-Agent: PortalLauncher-Callbacks/1\r\nContent-Length: 2\r\n\r\né",
  );
});

Deno.test("http client: trusts DENO_CERT's authorities, as fetch does", async () => {
  const r = receiver({ cert, key });
  try {
    const client = new URL("../../../server/callbacks/http_client.ts", import.meta.url).href;
    const script = `
      const { CallbackHttpClient } = await import(${JSON.stringify(client)});
      const c = new CallbackHttpClient();
      const a = await c.send("https://callback.test:${r.port}/", {
        method: "POST", headers: {}, body: "", addresses: ["127.0.0.1"] });
      c.close();
      console.log(a.status);`;
    const run = (env: Record<string, string>) =>
      new Deno.Command(Deno.execPath(), { args: ["eval", script], env, stderr: "piped" }).output();
    const trusted = await run({ DENO_CERT: new URL("callback.test.crt", fixtures).pathname });
    assert.equal(new TextDecoder().decode(trusted.stdout).trim(), "200");
    const untrusted = await run({});
    assert.equal(untrusted.success, false);
    assert.match(new TextDecoder().decode(untrusted.stderr), /self-signed certificate/);
  } finally {
    await r.server.shutdown();
  }
});

Deno.test("http client: bytes that arrive on an idle connection are never an answer", async () => {
  // The first connection's answer is followed by a stray one (as servers that send 408 before
  // closing an idle connection do); the second request must not read it.
  let straySent = () => {};
  const stray = new Promise<void>((resolve) => straySent = resolve);
  const s = rawServer(async (n, conn) => {
    if (n === 1) {
      await write(conn, "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nfirst");
      await new Promise((resolve) => setTimeout(resolve, 20));
      await write(conn, "HTTP/1.1 408 Request Timeout\r\nContent-Length: 0\r\n\r\n");
      straySent();
      return;
    }
    await write(conn, "HTTP/1.1 200 OK\r\nContent-Length: 6\r\n\r\nsecond");
  });
  const client = new CallbackHttpClient();
  try {
    const url = `http://callback.test:${s.port}/`;
    assert.equal((await client.send(url, post())).snippet, "first");
    await stray;
    await new Promise((resolve) => setTimeout(resolve, 50));
    const second = await client.send(url, post());
    assert.deepEqual([second.status, second.snippet], [200, "second"]);
    assert.equal(s.connections, 2);
  } finally {
    client.close();
    s.close();
  }
});

Deno.test("http client: a request the server read and dropped is not sent again", async () => {
  // Each connection answers its first request, then reads the next one and closes unanswered.
  let requests = 0;
  const s = rawServer(async (_n, conn) => {
    requests++;
    if (requests === 1) {
      return void await write(conn, "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n");
    }
    conn.close();
  });
  const client = new CallbackHttpClient();
  try {
    const url = `http://callback.test:${s.port}/`;
    assert.equal((await client.send(url, post())).status, 200);
    await assert.rejects(client.send(url, post()));
    assert.equal(
      requests,
      2,
      "the dropped request was sent once: the attempt fails, retried later",
    );
  } finally {
    client.close();
    s.close();
  }
});

Deno.test("http client: an abandoned TLS handshake closes its socket", async () => {
  // A server that accepts and never answers the ClientHello.
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  const accepted = (async () => {
    const conn = await listener.accept();
    const buf = new Uint8Array(4096);
    try {
      while ((await conn.read(buf)) !== null);
    } catch {
      // reset: closed too
    }
    conn.close();
    return "closed";
  })();
  const client = new CallbackHttpClient();
  try {
    await assert.rejects(
      client.send(`https://callback.test:${port}/`, post("{}", AbortSignal.timeout(100))),
      (err: Error) => err.name === "TimeoutError",
    );
    const timeout = new Promise((resolve) => setTimeout(() => resolve("still open"), 2_000));
    assert.equal(await Promise.race([accepted, timeout]), "closed");
  } finally {
    client.close();
    listener.close();
  }
});

Deno.test("http client: framing floods are cut: tiny chunks, endless 1xx", async () => {
  const s = rawServer(async (n, conn) => {
    if (n === 1) {
      // 1-byte chunks with long extensions, never ending: cut at 64 KiB of framing.
      await write(conn, "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n");
      const chunk = `1;${"e".repeat(1000)}\r\nx\r\n`;
      try {
        for (let i = 0; i < 1000; i++) await write(conn, chunk);
      } catch {
        // the client closed the connection
      }
      return;
    }
    try {
      for (let i = 0; i < 100; i++) await write(conn, "HTTP/1.1 100 Continue\r\n\r\n");
    } catch {
      // the client closed the connection
    }
  });
  const client = new CallbackHttpClient();
  try {
    const url = `http://callback.test:${s.port}/`;
    const cut = await client.send(url, post("{}", AbortSignal.timeout(5_000)));
    assert.equal(cut.status, 200);
    assert.match(cut.snippet ?? "", /^x{60,}$/);
    assert.equal(client.idleCount, 0, "the connection is closed, not kept");
    await assert.rejects(
      client.send(url, post("{}", AbortSignal.timeout(5_000))),
      /over 8 1xx responses/,
    );
  } finally {
    client.close();
    s.close();
  }
});

Deno.test("http client: idle connections are closed when their time is up", async () => {
  const r = receiver();
  const client = new CallbackHttpClient({ idleMs: 100 });
  try {
    assert.equal((await client.send(`http://callback.test:${r.port}/`, post())).status, 200);
    assert.equal(client.idleCount, 1);
    await new Promise((resolve) => setTimeout(resolve, 600));
    assert.equal(client.idleCount, 0);
  } finally {
    client.close();
    await r.server.shutdown();
  }
});

Deno.test("http client: a server flooding an idle TLS connection is cut off", async () => {
  const listener = Deno.listenTls({ hostname: "127.0.0.1", port: 0, cert, key });
  const port = (listener.addr as Deno.NetAddr).port;
  const flood = (async () => {
    const conn = await listener.accept();
    await conn.read(new Uint8Array(65536));
    const answer = "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok";
    await conn.write(new TextEncoder().encode(answer));
    await new Promise((resolve) => setTimeout(resolve, 50));
    // Then, unasked, as fast as the client takes it: the client must close the connection.
    const junk = new Uint8Array(64 * 1024).fill(120);
    let sent = 0;
    try {
      while (sent < 256 * 1024 * 1024) sent += await conn.write(junk);
    } catch {
      // closed by the client
    }
    conn.close();
    return sent;
  })();
  const client = new CallbackHttpClient({ caCerts: [cert] });
  try {
    assert.equal((await client.send(`https://callback.test:${port}/`, post())).status, 200);
    const sent = await flood;
    assert.ok(sent < 32 * 1024 * 1024, `${sent} bytes taken before the connection closed`);
  } finally {
    client.close();
    listener.close();
  }
});

Deno.test("http client: an address that never answers has the next tried beside it", async () => {
  const r = receiver();
  const tried: string[] = [];
  const abandoned: string[] = [];
  // 192.0.2.1 drops every packet: its connection never completes.
  const client = new CallbackHttpClient({
    connectTcp: (address, port, signal) => {
      tried.push(address);
      signal.addEventListener("abort", () => abandoned.push(address));
      return address === "192.0.2.1"
        ? new Promise<never>(() => {})
        : Deno.connect({ hostname: address, port });
    },
  });
  try {
    const started = performance.now();
    const res = await client.send(
      `http://callback.test:${r.port}/`,
      post("{}", AbortSignal.timeout(10_000), ["192.0.2.1", "127.0.0.1"]),
    );
    const took = performance.now() - started;
    assert.equal(res.status, 200);
    assert.deepEqual(tried, ["192.0.2.1", "127.0.0.1"]);
    assert.ok(abandoned.includes("192.0.2.1"), "the silent address's connect is cancelled");
    assert.ok(
      took >= NEXT_ADDRESS_AFTER_MS - 50 && took < NEXT_ADDRESS_AFTER_MS + 500,
      `${took}`,
    );
    // The last address has the request's whole time: alone, it fails only with the request.
    await assert.rejects(
      client.send(
        `http://callback.test:${r.port}/`,
        post("{}", AbortSignal.timeout(300), ["192.0.2.1"]),
      ),
      (err: Error) => err.name === "TimeoutError",
    );
  } finally {
    client.close();
    await r.server.shutdown();
  }
});

Deno.test("http client: a scheme with a proxy goes through fetch, which ignores the addresses", async () => {
  const r = receiver();
  // 192.0.2.99 is no receiver: only fetch, going by the URL's host (and the proxy it is given by
  // the environment, none here), reaches 127.0.0.1.
  const client = new CallbackHttpClient({ proxied: ["http:"], keep: 4 });
  try {
    const res = await client.send(
      `http://127.0.0.1:${r.port}/proxied`,
      post("{}", AbortSignal.timeout(5_000), ["192.0.2.99"]),
    );
    assert.deepEqual([res.status, res.snippet], [200, "ok "]);
    assert.equal(client.idleCount, 0, "fetch's connections are fetch's own");
  } finally {
    client.close();
    await r.server.shutdown();
  }
});
