/**
 * The callbacks' connection race (server/callbacks/address_race.ts): families alternate, a
 * failed address gives way at once, a silent one after NEXT_ADDRESS_AFTER_MS, the first to
 * connect wins and a late one is closed, every address is tried before the race fails.
 */
import assert from "node:assert/strict";
import {
  alternateFamilies,
  firstToConnect,
  NEXT_ADDRESS_AFTER_MS,
} from "../../../server/callbacks/address_race.ts";
import type { ByteConn } from "../../../server/callbacks/tls_conn.ts";

/** A connection that only records being closed. */
function fakeConn(name: string, closed: string[]): ByteConn {
  return { close: () => closed.push(name) } as unknown as ByteConn;
}

const after = <T>(ms: number, value: () => T) =>
  new Promise<T>((resolve) => setTimeout(() => resolve(value()), ms));

Deno.test("address race: IPv6 and IPv4 alternate, the first address's family first", () => {
  assert.deepEqual(
    alternateFamilies(["192.0.2.1", "192.0.2.2", "2001:db8::1", "2001:db8::2", "2001:db8::3"]),
    ["192.0.2.1", "2001:db8::1", "192.0.2.2", "2001:db8::2", "2001:db8::3"],
  );
  assert.deepEqual(alternateFamilies(["2001:db8::1", "192.0.2.1", "192.0.2.2"]), [
    "2001:db8::1",
    "192.0.2.1",
    "192.0.2.2",
  ]);
  assert.deepEqual(alternateFamilies(["192.0.2.1"]), ["192.0.2.1"]);
});

Deno.test("address race: a refused address gives way at once, a silent one after the delay", async () => {
  const closed: string[] = [];
  const started: [string, number][] = [];
  const t0 = performance.now();
  const conn = await firstToConnect(["a", "b", "c"], undefined, (address) => {
    started.push([address, performance.now() - t0]);
    if (address === "a") return Promise.reject(new Deno.errors.ConnectionRefused("refused"));
    if (address === "b") return new Promise<never>(() => {}); // packets dropped
    return Promise.resolve(fakeConn(address, closed));
  });
  conn.close();
  assert.deepEqual(started.map(([a]) => a), ["a", "b", "c"]);
  assert.ok(started[1][1] < NEXT_ADDRESS_AFTER_MS / 2, `b at ${started[1][1]} ms: at once`);
  assert.ok(
    started[2][1] >= NEXT_ADDRESS_AFTER_MS - 20,
    `c at ${started[2][1]} ms: after b's delay`,
  );
  assert.deepEqual(closed, ["c"]);
});

Deno.test("address race: the first to connect wins; one connecting later is closed", async () => {
  const closed: string[] = [];
  const aborted: string[] = [];
  const conn = await firstToConnect(["slow", "fast"], undefined, (address, limit) => {
    limit.addEventListener("abort", () => aborted.push(address));
    return address === "slow"
      ? after(NEXT_ADDRESS_AFTER_MS + 150, () => fakeConn("slow", closed))
      : Promise.resolve(fakeConn("fast", closed));
  });
  assert.deepEqual(aborted, ["slow", "fast"], "every attempt told the race is over");
  await after(300, () => null);
  assert.deepEqual(closed, ["slow"], "the late connection closed, the winner kept");
  conn.close();
});

Deno.test("address race: any failure gives way to the next; all failed, the telling one is said", async () => {
  const closed: string[] = [];
  // A container without IPv6: its address is refused at once, the IPv4 one answers later.
  const conn = await firstToConnect(
    ["2001:db8::1", "192.0.2.1"],
    undefined,
    (address) =>
      address === "2001:db8::1"
        ? Promise.reject(new Deno.errors.AddrNotAvailable("Cannot assign requested address"))
        : after(NEXT_ADDRESS_AFTER_MS + 50, () => fakeConn(address, closed)),
  );
  conn.close();
  assert.deepEqual(closed, ["192.0.2.1"]);

  let tried = 0;
  const certificate = new Error("the certificate names no host (no subjectAltName)");
  await assert.rejects(
    firstToConnect(["a", "b", "c"], undefined, (address) => {
      tried++;
      if (address === "b") throw certificate; // thrown, not rejected
      return Promise.reject(new Deno.errors.ConnectionRefused("Connection refused"));
    }),
    /^Error: b: the certificate names no host \(no subjectAltName\)$/,
  );
  assert.equal(tried, 3, "every address tried");
  await assert.rejects(
    firstToConnect([], undefined, () => Promise.reject(new Error("unused"))),
    /no address to connect to/,
  );
});

Deno.test("address race: the caller's signal ends it with its reason", async () => {
  const stop = new AbortController();
  const racing = firstToConnect(["a", "b"], stop.signal, () => new Promise<never>(() => {}));
  setTimeout(() => stop.abort(new DOMException("timed out after 50 ms", "TimeoutError")), 50);
  await assert.rejects(racing, (err: Error) => err.name === "TimeoutError");
});
