/**
 * server/http/route_cache.ts: a method and path asked for again is matched no more; the result,
 * reused, answers with the parameters of its own path; other paths and methods are matched on
 * their own; a path asked for once keeps no result; the cache keeps at most its bound.
 */
import assert from "node:assert/strict";
import { Hono } from "hono";
import { TrieRouter } from "hono/router/trie-router";
import {
  cachedRouter,
  MAX_CACHED_PATH_LENGTH,
  RouteCache,
} from "../../../server/http/route_cache.ts";

Deno.test("route cache: one match per method and path, the right parameters each", async () => {
  const inner = new TrieRouter<unknown>();
  let matched = 0;
  const counting = {
    name: inner.name,
    add: (m: string, p: string, h: unknown) => inner.add(m, p, h),
    match: (m: string, p: string) => (matched++, inner.match(m, p)),
  };
  const router = new RouteCache(counting);
  const app = new Hono({ router: router as never });
  app.use("*", async (c, next) => {
    await next();
    c.header("X-Seen", "1");
  });
  app.get("/apps/:name", (c) => c.text(`get ${c.req.param("name")}`));
  app.post("/apps/:name", (c) => c.text(`post ${c.req.param("name")}`));
  app.get("/apps/new", (c) => c.text("new form"));

  const answer = async (method: string, path: string) => {
    const res = await app.request(path, { method });
    return `${res.status} ${await res.text()} ${res.headers.get("X-Seen")}`;
  };
  for (let round = 0; round < 3; round++) {
    assert.equal(await answer("GET", "/apps/crm"), "200 get crm 1");
    assert.equal(await answer("GET", "/apps/cti%20two"), "200 get cti two 1");
    assert.equal(await answer("POST", "/apps/crm"), "200 post crm 1");
    assert.equal(await answer("GET", "/apps/new"), "200 get new 1");
    assert.equal(await answer("GET", "/nothing"), "404 404 Not Found 1");
  }
  assert.equal(matched, 10, "each method and path matched twice in three rounds, then kept");
  assert.equal(router.size, 5);
});

Deno.test("route cache: a path asked once keeps nothing; at most its bound", () => {
  const once = new RouteCache(new TrieRouter<string>(), 3);
  once.add("GET", "/s/:id", "session");
  for (let id = 0; id < 10; id++) once.match("GET", `/s/${id}`);
  assert.equal(once.size, 0, "ten paths asked for once: no result kept");
  once.match("GET", "/s/9");
  assert.equal(once.size, 1, "asked again while remembered: kept");
  once.match("GET", "/s/0");
  assert.equal(once.size, 1, "asked again after 3 other misses: forgotten, not kept");

  const router = new RouteCache(new TrieRouter<string>(), 3);
  router.add("GET", "/s/:id", "session");
  for (const id of [1, 1, 2, 2, 3, 3, 4, 4, 5, 5]) {
    const [[[handler, params]]] = router.match("GET", `/s/${id}`) as [
      [string, Record<string, string>][],
    ];
    assert.equal(handler, "session");
    assert.deepEqual({ ...params }, { id: String(id) });
  }
  assert.equal(router.size, 3);
  const roomy = new RouteCache(new TrieRouter<string>(), 3);
  roomy.add("GET", "/s/:id", "session");
  roomy.match("GET", "/s/1");
  roomy.match("GET", "/s/1");
  const long = `/s/${"x".repeat(MAX_CACHED_PATH_LENGTH)}`;
  for (let i = 0; i < 3; i++) {
    assert.equal((roomy.match("GET", long)[0][0][1] as Record<string, string>).id.length, 200);
  }
  assert.equal(roomy.size, 1, "a path over the length bound is matched, not kept");
  assert.equal(cachedRouter().name, "RouteCache(SmartRouter)");
});
