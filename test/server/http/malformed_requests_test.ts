/**
 * Requests no browser or client library sends, over a real socket (what `fetch` and
 * `app.request()` cannot send): a multipart body without its boundary or with another one, a body
 * shorter than its Content-Length, a Host header carrying a path. Each is the client's fault: a
 * 400 saying what is wrong, never a 500 or an "unhandled error" in the log.
 */
import assert from "node:assert/strict";
import { pglite } from "../../helpers/db.ts";
import { type HttpTestService, startHttpService } from "../../helpers/http_service.ts";
import { RawConnection } from "../../helpers/raw_http.ts";
import { createTestApp, launchOk } from "../../helpers/launch.ts";
import { launchPayload } from "../../helpers/payload.ts";
import { uniqueId } from "../../helpers/shared.ts";

const opts = { sanitizeOps: false, sanitizeResources: false };

/** Runs `work` against a fresh service, collecting what it logs on stderr. */
async function withService(
  work: (svc: HttpTestService, port: number, errors: string[]) => Promise<void>,
): Promise<void> {
  const svc = await startHttpService(pglite);
  const errors: string[] = [];
  const original = console.error;
  console.error = (...args: unknown[]) => errors.push(args.map(String).join(" "));
  try {
    await work(svc, Number(new URL(svc.base).port), errors);
  } finally {
    console.error = original;
    await svc.close();
  }
}

/** One raw request on a new connection; `end` half-closes after sending (the body stops there). */
async function raw(port: number, request: string, end = false) {
  const conn = await RawConnection.open(port);
  try {
    await conn.send(request);
    if (end) await conn.conn.closeWrite();
    return await conn.response();
  } finally {
    conn.close();
  }
}

Deno.test({
  name: "malformed requests: unparsable multipart bodies are a 400 on every form route",
  ...opts,
  async fn() {
    await withService(async (svc, port, errors) => {
      const admin = await svc.adminToken();
      const app = await createTestApp(svc, admin);
      const routes = [
        `/portal/api/auth/app/${app.appName}`,
        `/portal/api/auth/app/${app.appName}/validate`,
        "/portal/login",
        "/admin/login",
        "/api/v1/oauth2/token",
      ];
      const bodies: [string, string][] = [
        ["multipart/form-data", "garbage"],
        ["multipart/form-data; boundary=expected", "--other\r\nContent-Disposition: x\r\n\r\n1"],
      ];
      for (const path of routes) {
        for (const [type, body] of bodies) {
          const res = await raw(
            port,
            `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAccept: application/json\r\n` +
              `Content-Type: ${type}\r\nContent-Length: ${body.length}\r\n\r\n${body}`,
          );
          assert.equal(res.status, 400, `${path} ${type}: ${res.body}`);
          assert.match(res.body, /multipart\/form-data body could not be parsed/, path);
          if (path.startsWith("/api/v1/oauth2/")) {
            assert.equal(JSON.parse(res.body).error, "invalid_request");
          }
        }
      }
      // Nothing is left broken: a launch posted properly lands.
      await launchOk(svc, app, launchPayload({ referenceId: uniqueId("M") }));
      assert.deepEqual(errors.filter((e) => e.includes("unhandled error")), []);
    });
  },
});

Deno.test({
  name: "malformed requests: a body that ends before its Content-Length is a 400",
  ...opts,
  async fn() {
    await withService(async (_svc, port, errors) => {
      for (
        const [path, type] of [
          ["/api/v1/oauth2/token", "application/x-www-form-urlencoded"],
          ["/api/v1/sessions/1", "application/json"],
        ]
      ) {
        const res = await raw(
          port,
          `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nContent-Type: ${type}\r\n` +
            `Content-Length: 500\r\n\r\n{"grant_type":`,
          true,
        );
        assert.equal(res.status, 400, `${path}: ${res.body}`);
        assert.match(res.body, /connection ended before the whole body arrived/);
      }
      // Without a length (chunked), the body limit reads it to count it: it breaks there.
      const chunked = await raw(
        port,
        `POST /api/v1/oauth2/token HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n` +
          "Content-Type: application/x-www-form-urlencoded\r\nTransfer-Encoding: chunked\r\n\r\n" +
          "5\r\ngrant\r\n",
        true,
      );
      assert.equal(chunked.status, 400, chunked.body);
      assert.equal(JSON.parse(chunked.body).error, "invalid_request");
      // A multipart body cut short is that, not a form without its boundary.
      const cut = await raw(
        port,
        `POST /portal/login HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAccept: application/json\r\n` +
          "Content-Type: multipart/form-data; boundary=b\r\nContent-Length: 400\r\n\r\n--b\r\n",
        true,
      );
      assert.equal(cut.status, 400, cut.body);
      assert.match(cut.body, /connection ended before the whole body arrived/);
      assert.deepEqual(errors.filter((e) => e.includes("unhandled error")), []);
    });
  },
});

Deno.test({
  name: "malformed requests: a Host header is host[:port], nothing that changes the path",
  ...opts,
  async fn() {
    await withService(async (_svc, port) => {
      const get = (host: string) =>
        raw(port, `GET /healthz HTTP/1.1\r\nHost: ${host}\r\nAccept: application/json\r\n\r\n`);
      for (
        const host of [
          `127.0.0.1:${port}/api/v1/admin/apps?`,
          `127.0.0.1:${port}/admin/apps?x=`,
          `127.0.0.1:${port}#x`,
          "user@127.0.0.1",
          "127.0.0.1:99999999",
          // The pattern lets these through; the URL parser, which routes use, does not.
          "foo.1",
          "1.2.3.256",
          "a:99999",
          "[1]",
        ]
      ) {
        const res = await get(host);
        assert.equal(res.status, 400, host);
        assert.equal(JSON.parse(res.body).code, "invalid_host", host);
      }
      for (const host of [`127.0.0.1:${port}`, "localhost", "[::1]:8000", "portal_app.internal"]) {
        const res = await get(host);
        assert.equal(res.status, 200, `${host}: ${res.body}`);
        assert.equal(JSON.parse(res.body).status, "ok");
      }
    });
  },
});
