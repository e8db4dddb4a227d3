/**
 * Every limit per client address counts an IPv6 client by its /64 (server/http/rate_limit_key.ts):
 * the launch and OAuth failure limits, password sign-in, password reset and the screen-sharing
 * code entry. A client that takes a new address of its /64 for every try is still
 * counted once; another /64 is not affected. An IPv4 address with a proxy's port is itself.
 */
import assert from "node:assert/strict";
import { ADMIN_CLIENT, failureLimitedService } from "../../helpers/service.ts";
import { uniqueId } from "../../helpers/shared.ts";
import { postSignIn } from "../../helpers/sign_in.ts";
import { networkKey, rateLimitKey } from "../../../server/http/rate_limit_key.ts";
import {
  FailureLimiter,
  MAX_KEPT_FAILURES,
  MAX_TRACKED_ADDRESSES,
} from "../../../server/http/failure_rate.ts";
import { PasswordSignIn } from "../../../server/auth/logins.ts";
import { NETWORK_FREE_FACTOR } from "../../../server/auth/sign_in_limiter.ts";
import { requestPasswordReset, RESET_LIMITS } from "../../../server/auth/password_reset.ts";
import { LOGIN_LIMITS } from "../../../server/portal/sign_in_routes.tsx";
import { CODE_LIMITS } from "../../../server/remote/routes.tsx";

const opts = { sanitizeOps: false, sanitizeResources: false };
const LIMIT = 3;

Deno.test("rate-limit key: IPv6 by its /64, IPv4 as itself, the rest as written", () => {
  const cases: [string | null, string][] = [
    ["203.0.113.9", "203.0.113.9"],
    ["203.0.113.9:51234", "203.0.113.9"],
    [" 203.0.113.9 ", "203.0.113.9"],
    ["::ffff:192.0.2.1", "192.0.2.1"],
    ["::FFFF:192.0.2.1", "192.0.2.1"],
    ["2001:db8:0:1:aaaa::1", "2001:db8:0:1::/64"],
    ["2001:db8::5", "2001:db8:0:0::/64"],
    ["2001:DB8:0:1:ffff:1:2:3", "2001:db8:0:1::/64"],
    ["2001:0db8:0000:0001:0:0:0:1", "2001:db8:0:1::/64"],
    ["[2001:db8:0:1::7]:443", "2001:db8:0:1::/64"],
    ["[2001:db8:0:1::7]", "2001:db8:0:1::/64"],
    ["fe80::1%eth0", "fe80:0:0:0::/64"],
    ["::1", "0:0:0:0::/64"],
    ["::", "0:0:0:0::/64"],
    ["1:2:3:4:5:6:7::", "1:2:3:4::/64"],
    // IPv6 addresses that carry an IPv4 client count as that client, however written.
    ["0:0:0:0:0:ffff:c000:201", "192.0.2.1"],
    ["64:ff9b::192.0.2.1", "192.0.2.1"],
    ["64:ff9b::c000:201", "192.0.2.1"],
    ["2002:c000:201:7::1", "192.0.2.1"], // 6to4: the IPv4 host's /48
    ["2001:0:4136:e378:8000:63bf:3fff:fdd2", "192.0.2.45"], // Teredo: the client, inverted
    ["2001:db8::1.2.3.4", "2001:db8:0:0::/64"],
    // Not one address: limited as written, so never merged with another.
    ["::ffff:192.0.2.300", "::ffff:192.0.2.300"],
    ["192.0.2.300", "192.0.2.300"],
    ["2001:db8::1::2", "2001:db8::1::2"],
    ["1:2:3:4:5:6:7:8:9", "1:2:3:4:5:6:7:8:9"],
    ["2001:db8:0:1:0:0:0:12345", "2001:db8:0:1:0:0:0:12345"],
    ["gggg::1", "gggg::1"],
    ["unknown", "unknown"],
    ["", "unknown"],
    [null, "unknown"],
  ];
  for (const [address, key] of cases) assert.equal(rateLimitKey(address), key, String(address));
});

Deno.test("failure limiter: one /64 counts once; the bound drops the least recent", () => {
  const now = 1_000;
  const limiter = new FailureLimiter(LIMIT, 60_000, () => now);
  for (let i = 1; i <= LIMIT; i++) limiter.fail(`2001:db8:5:1::${i}`);
  assert.equal(
    limiter.retryAfter("2001:db8:5:1:ffff::9"),
    60_000,
    "a new address of the /64 waits",
  );
  assert.equal(limiter.retryAfter("2001:db8:5:2::1"), 0, "another /64 may try");
  assert.deepEqual(limiter.kept, { addresses: 1, failures: LIMIT });

  // The address that failed first but fails still is kept when the bound is reached.
  const bounded = new FailureLimiter(LIMIT, 60_000, () => now);
  assert.equal(bounded.capacity, Math.min(MAX_TRACKED_ADDRESSES, MAX_KEPT_FAILURES / LIMIT));
  bounded.fail("198.51.100.1");
  for (let i = 0; i < bounded.capacity - 1; i++) {
    bounded.fail(`10.${i >> 16}.${i >> 8 & 255}.${i & 255}`);
  }
  bounded.fail("198.51.100.1");
  bounded.fail("192.0.2.200"); // one past the bound: the least recent failure goes
  assert.equal(bounded.kept.addresses, bounded.capacity);
  bounded.fail("198.51.100.1");
  assert.ok(bounded.retryAfter("198.51.100.1") > 0, "its three failures were all kept");
  assert.equal(bounded.retryAfter("10.0.0.0"), 0, "the least recent address went");
});

Deno.test("failure limiter: only the last failures are kept, the wait is exact", () => {
  let now = 0;
  const limiter = new FailureLimiter(LIMIT, 60_000, () => now);
  // Parallel requests all pass the check before any failure is counted: many failures at once.
  for (let i = 0; i < 50; i++, now += 100) limiter.fail("203.0.113.5");
  assert.deepEqual(limiter.kept, { addresses: 1, failures: LIMIT }, "no more than the limit");
  // The last three failed at 4,700, 4,800 and 4,900 ms: the oldest of them leaves at 64,700.
  assert.equal(limiter.retryAfter("203.0.113.5"), 64_700 - now);
  now = 64_700;
  assert.equal(limiter.retryAfter("203.0.113.5"), 0, "two failures left in the window");
  limiter.fail("203.0.113.5");
  assert.equal(limiter.retryAfter("203.0.113.5"), 100, "three again: 4,800 leaves at 64,800");

  // However many addresses fail, the times kept stay within MAX_KEPT_FAILURES.
  const wide = new FailureLimiter(60, 60_000, () => now);
  for (let i = 0; i < wide.capacity + 500; i++) {
    for (let k = 0; k < 70; k++) wide.fail(`2001:db8:${i.toString(16)}::${k}`);
  }
  assert.ok(wide.kept.failures <= MAX_KEPT_FAILURES, `${wide.kept.failures} kept`);
  assert.equal(wide.kept.addresses, wide.capacity);
});

const service = failureLimitedService(LIMIT);

let networks = 0;
/** A /64 no other test uses, and the i-th address in it. */
function newNetwork(): (i: number) => string {
  const n = ++networks;
  return (i) => `2001:db8:${n.toString(16)}:1:${(i + 1).toString(16)}::${(i * 7 + 3).toString(16)}`;
}
const otherNetwork = () => newNetwork()(0);

Deno.test("rate-limit key: failed launches from one /64 count together", opts, async () => {
  const svc = await service();
  const net = newNetwork();
  const launch = (address: string) =>
    svc.request("/portal/api/auth/app/no-such-app", {
      method: "POST",
      headers: { "X-Forwarded-For": address, Accept: "application/json" },
      body: new URLSearchParams({ signed_request: "x.y" }),
    });
  for (let i = 0; i < LIMIT; i++) {
    const res = await launch(net(i));
    await res.body?.cancel();
    assert.equal(res.status, 404);
  }
  const limited = await launch(net(LIMIT));
  assert.equal(limited.status, 429);
  assert.equal((await limited.json()).code, "too_many_failures");
  const other = await launch(otherNetwork());
  await other.body?.cancel();
  assert.equal(other.status, 404, "another /64 is not affected");
});

Deno.test("rate-limit key: OAuth failures from one /64, or one IPv4 with ports", opts, async () => {
  const svc = await service();
  const token = (address: string, secret: string) =>
    svc.request("/api/v1/oauth2/token", {
      method: "POST",
      headers: {
        "X-Forwarded-For": address,
        Authorization: `Basic ${btoa(`${ADMIN_CLIENT.id}:${secret}`)}`,
      },
      body: new URLSearchParams({ grant_type: "client_credentials" }),
    });
  for (const addressOf of [newNetwork(), (i: number) => `198.51.100.77:${40_000 + i}`]) {
    for (let i = 0; i < LIMIT; i++) {
      const res = await token(addressOf(i), "wrong-secret");
      await res.body?.cancel();
      assert.equal(res.status, 401);
    }
    const limited = await token(addressOf(LIMIT), ADMIN_CLIENT.secret);
    await limited.body?.cancel();
    assert.equal(limited.status, 429, `${addressOf(LIMIT)} waits with the right secret`);
  }
  const other = await token(otherNetwork(), ADMIN_CLIENT.secret);
  await other.body?.cancel();
  assert.equal(other.status, 200);
});

Deno.test("rate-limit key: password sign-in counts a /64 once", opts, async () => {
  const svc = await service();
  const email = `${uniqueId("rk")}@example.com`;
  const net = newNetwork();
  // Through the page: each try from a new address of the /64, the account's budget runs out.
  for (let i = 0; i < LOGIN_LIMITS.perAccount; i++) {
    const res = await postSignIn(svc, "/portal/login", { email, password: "wrong-password" }, {
      "X-Forwarded-For": net(i),
    });
    await res.body?.cancel();
    assert.equal(res.status, 401, `try ${i + 1}`);
  }
  const waits = await postSignIn(svc, "/portal/login", { email, password: "wrong-password" }, {
    "X-Forwarded-For": net(LOGIN_LIMITS.perAccount),
  });
  await waits.body?.cancel();
  assert.equal(waits.status, 429);
  assert.match(waits.headers.get("Retry-After") ?? "", /^[1-9]\d*$/);

  // The address budget too: many accounts, one /64.
  const signIn = new PasswordSignIn("agent", 8, { perAccount: 5, perAddress: 3, windowMs: 60_000 });
  const many = newNetwork();
  const kinds: string[] = [];
  for (let i = 0; i < 4; i++) {
    const outcome = await signIn.attempt(svc.deps, {
      email: `${uniqueId("rk")}@example.com`,
      password: "wrong-password",
      address: many(i),
    });
    kinds.push(outcome.kind);
  }
  assert.deepEqual(kinds, ["refused", "refused", "refused", "wait"]);
  const elsewhere = await signIn.attempt(svc.deps, {
    email: `${uniqueId("rk")}@example.com`,
    password: "wrong-password",
    address: otherNetwork(),
  });
  assert.equal(elsewhere.kind, "refused", "another /64 still has its budget");
});

Deno.test("rate-limit key: password reset requests count a /64 once", opts, async () => {
  const svc = await service();
  const net = newNetwork();
  const reset = (address: string) =>
    requestPasswordReset(svc.deps, {
      email: `${uniqueId("rk")}@example.com`,
      role: "agent",
      address,
      linkBase: "http://portal.test/portal/password-reset",
    });
  const kinds: string[] = [];
  for (let i = 0; i <= RESET_LIMITS.perAddress; i++) kinds.push((await reset(net(i))).kind);
  assert.equal(kinds.at(-1), "wait", `request ${RESET_LIMITS.perAddress + 1} waits`);
  assert.ok(kinds.slice(0, -1).every((k) => k !== "wait"));
  assert.notEqual((await reset(otherNetwork())).kind, "wait");
});

Deno.test(
  "rate-limit key: screen-sharing code tries count a /64 once, typos none",
  opts,
  async () => {
    const svc = await service();
    const net = newNetwork();
    const tryCode = (address: string, code = "987654321") =>
      svc.request("/portal/r", {
        method: "POST",
        headers: { "X-Forwarded-For": address },
        body: new URLSearchParams({ code }),
      });
    // What is not nine digits answers like a wrong code but uses up no try.
    for (const typo of ["98765432", "9876543210", "98765432x", "", "987-654-32"]) {
      for (let i = 0; i < CODE_LIMITS.perAccount + 1; i++) {
        const res = await tryCode(net(0), typo);
        assert.equal(res.status, 400, `${JSON.stringify(typo)} try ${i + 1}`);
        assert.match(await res.text(), /role="alert"/);
      }
    }
    for (let i = 0; i < CODE_LIMITS.perAccount; i++) {
      const res = await tryCode(net(i));
      await res.body?.cancel();
      assert.equal(res.status, 400, `try ${i + 1}: a wrong code`);
    }
    const limited = await tryCode(net(CODE_LIMITS.perAccount));
    await limited.body?.cancel();
    assert.equal(limited.status, 429);
    const other = await tryCode(otherNetwork());
    await other.body?.cancel();
    assert.equal(other.status, 400, "another /64 may try the code");
  },
);

Deno.test("failure limiter: full, with the worst limit, it holds under 8 MB", async () => {
  // In a child with an exposed collector: the heap before and after filling a limiter whose
  // limit keeps the most (10 failures each at the address bound, MAX_KEPT_FAILURES in all).
  const module = new URL("../../../server/http/failure_rate.ts", import.meta.url).href;
  const code = `
    const { FailureLimiter } = await import(${JSON.stringify(module)});
    gc(); const before = Deno.memoryUsage().heapUsed;
    const limiter = new FailureLimiter(10, 60_000);
    for (let i = 0; i < limiter.capacity + 10; i++) {
      for (let k = 0; k < 11; k++) limiter.fail("2001:db8:" + i.toString(16) + "::" + k);
    }
    gc(); console.log(JSON.stringify({ bytes: Deno.memoryUsage().heapUsed - before, ...limiter.kept }));`;
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["eval", "--v8-flags=--expose-gc", code],
    stdout: "piped",
    stderr: "inherit",
  }).output();
  assert.equal(out.code, 0);
  const measured = JSON.parse(new TextDecoder().decode(out.stdout));
  assert.deepEqual(
    { addresses: measured.addresses, failures: measured.failures },
    { addresses: MAX_TRACKED_ADDRESSES, failures: MAX_KEPT_FAILURES },
  );
  assert.ok(measured.bytes < 8e6, `${(measured.bytes / 1e6).toFixed(1)} MB`);
});

Deno.test("rate-limit key: the /48 of an IPv6 key, none for others", () => {
  assert.equal(networkKey("2001:db8:a:b::/64"), "2001:db8:a::/48");
  assert.equal(networkKey(rateLimitKey("2001:db8::1")), "2001:db8:0::/48");
  assert.equal(networkKey("203.0.113.9"), null);
  assert.equal(networkKey("unknown"), null);
  assert.equal(networkKey("*"), null);
});

Deno.test("rate-limit key: sign-in counts an account's failures per /48 too", opts, async () => {
  const svc = await service();
  const limits = { perAccount: 2, perAddress: 10, windowMs: 60_000 };
  const signIn = new PasswordSignIn("agent", 8, limits);
  const email = `${uniqueId("rk")}@example.com`;
  const site = ++networks + 0x100;
  // A new /64 of one /48 for every try: each /64 has its own two free attempts, the /48 eight.
  const addressIn = (net: number, i: number) => `2001:db8:${net.toString(16)}:${i.toString(16)}::1`;
  const kinds: string[] = [];
  for (let i = 0; i <= limits.perAccount * NETWORK_FREE_FACTOR; i++) {
    kinds.push(
      (await signIn.attempt(svc.deps, {
        email,
        password: "wrong-password",
        address: addressIn(site, i),
      })).kind,
    );
  }
  assert.deepEqual(kinds, [
    ...Array(limits.perAccount * NETWORK_FREE_FACTOR).fill("refused"),
    "wait",
  ]);
  const otherSite = await signIn.attempt(svc.deps, {
    email,
    password: "wrong-password",
    address: addressIn(site + 1, 0),
  });
  assert.equal(otherSite.kind, "refused", "the account from another /48 is not slowed");
  const ipv4 = await signIn.attempt(svc.deps, { email, password: "x", address: "198.51.100.9" });
  assert.equal(ipv4.kind, "refused", "nor from an IPv4 address");
});
