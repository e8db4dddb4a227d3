/**
 * Hono's router with its answers remembered: a request's path is matched against the routes
 * once, and the next request for the same method and path reuses the result. Hono's own router
 * (SmartRouter: RegExpRouter, or TrieRouter when the routes need it, as ours do) walks the route
 * tree for every request, and the TrieRouter's answer (the matched middleware and handler with
 * their parameters: a dozen small objects for a launch) lives as long as the request; at 64
 * launches in flight, every young-generation collection copied them (docs/performance.md).
 *
 * A result is read-only to Hono (the parameters are decoded when read), so one result serves
 * every request for its path. A path is kept from its second request among the last
 * MAX_CACHED_PATHS missed: a path asked for once (one session's id among thousands) leaves only
 * its name behind, not a result that would outlive its request in the cache. Kept at once in a
 * cache of 1,000, the reads of random sessions raised the server's peak memory from 139-145 MB
 * to 155-164 (bench-profile --case get); as here, by 1 to 8 MB (three alternated pairs, 131-136
 * against 137-139): the price of a launch's cheaper match. The MAX_CACHED_PATHS kept last stay:
 * the launch route per app, the token and list routes. Paths longer than MAX_CACHED_PATH_LENGTH
 * are matched every time, so the cache holds some kilobytes whatever paths a client sends.
 */
import { RegExpRouter } from "hono/router/reg-exp-router";
import { SmartRouter } from "hono/router/smart-router";
import { TrieRouter } from "hono/router/trie-router";
import type { Result, Router } from "hono/router";
import { setBounded } from "../bounded_map.ts";

/** Paths whose match is kept, and paths remembered as missed once. */
export const MAX_CACHED_PATHS = 64;
/** The longest path whose match is kept (the service's own are far shorter). */
export const MAX_CACHED_PATH_LENGTH = 200;

/** A router that remembers what `inner` answered for each method and path. */
export class RouteCache<T> implements Router<T> {
  readonly name: string;
  #results = new Map<string, Result<T>>();
  /** Paths missed once lately: a second miss keeps the path's result. */
  #missed = new Map<string, true>();

  constructor(private readonly inner: Router<T>, private readonly max = MAX_CACHED_PATHS) {
    this.name = `RouteCache(${inner.name})`;
  }

  add(method: string, path: string, handler: T): void {
    this.#results.clear();
    this.#missed.clear();
    this.inner.add(method, path, handler);
  }

  match(method: string, path: string): Result<T> {
    if (path.length > MAX_CACHED_PATH_LENGTH) return this.inner.match(method, path);
    const key = `${method} ${path}`;
    let result = this.#results.get(key);
    if (result === undefined) {
      result = this.inner.match(method, path);
      if (this.#missed.delete(key)) setBounded(this.#results, key, result, this.max);
      else setBounded(this.#missed, key, true, this.max);
    }
    return result;
  }

  /** Paths kept (tests). */
  get size(): number {
    return this.#results.size;
  }
}

/** Hono's default router (SmartRouter over RegExpRouter and TrieRouter), its answers kept. */
export function cachedRouter<T>(): RouteCache<T> {
  return new RouteCache(new SmartRouter<T>({ routers: [new RegExpRouter(), new TrieRouter()] }));
}
