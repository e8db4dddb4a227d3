/**
 * The sign-in limiter counts only failures the client caused: successes never use up an
 * address's budget (the agents behind one office's address cannot lock each other out) and clear
 * nothing but their own (account, address) key; a try that has to wait, and an attempt the
 * service failed (5xx), count for nothing.
 */
import assert from "node:assert/strict";
import { backends } from "../../helpers/db.ts";
import { startTestService, type TestService } from "../../helpers/service.ts";
import { sharedFixture, uniqueId } from "../../helpers/shared.ts";
import { postSignIn } from "../../helpers/sign_in.ts";
import { PasswordSignIn } from "../../../server/auth/logins.ts";
import { hashPassword } from "../../../server/crypto/hashing.ts";
import { LOGIN_LIMITS } from "../../../server/portal/sign_in_routes.tsx";
import { ADMIN_LOGIN_LIMITS } from "../../../server/admin/screens/routes.tsx";
import { giveBackAttempt, reserveAttempt } from "../../../db/queries/sign_in_attempts.ts";

const opts = { sanitizeOps: false, sanitizeResources: false };
const PASSWORD = "right-password-01";
const LIMITS = { perAccount: 3, perAddress: 3, windowMs: 15 * 60_000 };

let addresses = 0;
/** An address no other test uses. */
const newAddress = () => `10.55.${Math.floor(++addresses / 250)}.${addresses % 250}`;

const passwordHash = hashPassword(PASSWORD);

/** Creates a user of `role` whose password is PASSWORD; answers its e-mail. */
async function user(svc: TestService, role: "agent" | "admin" = "agent"): Promise<string> {
  const email = `${uniqueId("sb")}@example.com`;
  await svc.db.sql`insert into users (role, email, first_name, last_name, password_hash)
    values (${role}, ${email}, 'S', 'B', ${await passwordHash})`;
  return email;
}

/** The failures counted for (account, address); `*` is the address's own count. */
async function failures(svc: TestService, account: string, address: string): Promise<number> {
  const [row] = await svc.db.sql<{ failures: number }[]>`select failures from sign_in_attempts
    where account = ${account} and address = ${address}`;
  return row?.failures ?? 0;
}

for (const backend of backends) {
  const service = sharedFixture(
    () => startTestService(backend, { TRUST_PROXY: "true" }),
    (svc: TestService) => svc.close(),
  );

  Deno.test(
    `sign-in budget: successes of many agents never slow a further one down [${backend.name}]`,
    opts,
    async () => {
      const svc = await service();
      const signIn = new PasswordSignIn("agent", 8, LIMITS);
      const address = newAddress();
      for (let i = 0; i < LIMITS.perAddress * 3 + 1; i++) {
        const outcome = await signIn.attempt(svc.deps, {
          email: await user(svc),
          password: PASSWORD,
          address,
        });
        assert.equal(outcome.kind, "ok", `agent ${i + 1}`);
      }
      assert.equal(await failures(svc, "*", address), 0, "the address used none of its budget");
    },
  );

  for (
    const [path, role, limits] of [
      ["/portal/login", "agent", LOGIN_LIMITS],
      ["/admin/login", "admin", ADMIN_LOGIN_LIMITS],
    ] as const
  ) {
    Deno.test(
      `sign-in budget: ${path} signs in more ${role}s from one address than its limit [${backend.name}]`,
      opts,
      async () => {
        const svc = await service();
        const address = newAddress();
        for (let i = 0; i < limits.perAddress + 2; i++) {
          const email = await user(svc, role);
          const res = await postSignIn(svc, path, { email, password: PASSWORD }, {
            "X-Forwarded-For": address,
          });
          await res.body?.cancel();
          assert.equal(res.status, 303, `${role} ${i + 1} signed in`);
        }
      },
    );
  }

  Deno.test(
    `sign-in budget: a success leaves another account's failures at the address [${backend.name}]`,
    opts,
    async () => {
      const svc = await service();
      const signIn = new PasswordSignIn("agent", 8, { ...LIMITS, perAddress: 10 });
      const address = newAddress();
      const a = await user(svc);
      const b = await user(svc);
      const attempt = async (email: string, password: string) =>
        (await signIn.attempt(svc.deps, { email, password, address })).kind;
      assert.equal(await attempt(a, "wrong"), "refused");
      assert.equal(await attempt(a, "wrong"), "refused");
      assert.equal(await attempt(b, PASSWORD), "ok");
      assert.equal(await failures(svc, a, address), 2, "a's failures stay");
      assert.equal(await failures(svc, "*", address), 2, "the address counts a's failures only");
      assert.equal(await attempt(a, "wrong"), "refused", "a's last free attempt");
      assert.equal(await attempt(a, PASSWORD), "wait", "a now waits: b's success reset nothing");
    },
  );

  Deno.test(
    `sign-in budget: a success clears its own (account, address) key only [${backend.name}]`,
    opts,
    async () => {
      const svc = await service();
      const signIn = new PasswordSignIn("agent", 8, { ...LIMITS, perAddress: 10 });
      const [here, there] = [newAddress(), newAddress()];
      const a = await user(svc);
      for (const address of [here, here, there]) {
        const outcome = await signIn.attempt(svc.deps, { email: a, password: "wrong", address });
        assert.equal(outcome.kind, "refused");
      }
      const ok = await signIn.attempt(svc.deps, { email: a, password: PASSWORD, address: here });
      assert.equal(ok.kind, "ok");
      assert.equal(await failures(svc, a, here), 0, "its own key is cleared");
      assert.equal(await failures(svc, a, there), 1, "the same account elsewhere keeps its count");
      assert.equal(await failures(svc, "*", here), 2, "the address keeps the failures it had");
    },
  );

  Deno.test(
    `sign-in budget: a given-back attempt undoes its count and its wait [${backend.name}]`,
    opts,
    async () => {
      const svc = await service();
      const key = { account: uniqueId("k"), address: newAddress() };
      const policy = { free: 2, maxDelaySeconds: 900, windowSeconds: 900 };
      const reserve = () => reserveAttempt(svc.db.sql, key, policy);
      const row = async () => {
        const [r] = await svc.db.sql<{ failures: number; lastAttemptAt: Date }[]>`
          select failures, last_attempt_at from sign_in_attempts
          where account = ${key.account} and address = ${key.address}`;
        return r;
      };
      const first = (await reserve()).reservation!;
      assert.equal(first.before, null, "nothing before the first attempt");
      const second = (await reserve()).reservation!;
      assert.ok(second.before, "the second knows when the first was");
      assert.ok((await reserve()).waitMs > 0, "two failures: the next attempt waits");

      // Given back while a later attempt is counted: one failure, whose wait is none.
      await giveBackAttempt(svc.db.sql, key, first, policy);
      assert.equal((await row()).failures, 1);
      const third = (await reserve()).reservation;
      assert.ok(third, "one failure: no wait");
      assert.ok((await reserve()).waitMs > 0, "two failures again: the next attempt waits");

      // Given back as the latest attempt: the key is as it was before it, idle since the second.
      await giveBackAttempt(svc.db.sql, key, third, policy);
      const after = await row();
      assert.equal(after.failures, 1);
      assert.equal(after.lastAttemptAt.getTime(), third.before!.getTime());
      assert.equal((await reserve()).waitMs, 0);
    },
  );

  Deno.test(
    `sign-in budget: a try that has to wait costs the address nothing [${backend.name}]`,
    opts,
    async () => {
      const svc = await service();
      const signIn = new PasswordSignIn("agent", 8, { ...LIMITS, perAddress: 10 });
      const address = newAddress();
      const a = await user(svc);
      const kinds: string[] = [];
      for (let i = 0; i < LIMITS.perAccount + 3; i++) {
        kinds.push((await signIn.attempt(svc.deps, { email: a, password: "wrong", address })).kind);
      }
      assert.deepEqual(kinds, [
        ...Array(LIMITS.perAccount).fill("refused"),
        "wait",
        "wait",
        "wait",
      ]);
      assert.equal(await failures(svc, "*", address), LIMITS.perAccount);
      assert.equal(signIn.evaluations, LIMITS.perAccount, "no password checked while waiting");
    },
  );
}

for (const backend of backends) {
  Deno.test(
    `sign-in budget: attempts the service failed (5xx) count for nothing [${backend.name}]`,
    opts,
    async () => {
      // Its own service: the faults below would break the shared one's other tests.
      const svc = await startTestService(backend, { TRUST_PROXY: "true" });
      try {
        const signIn = new PasswordSignIn("agent", 8, LIMITS);
        const address = newAddress();
        const a = await user(svc);
        const attempt = (password: string) =>
          signIn.attempt(svc.deps, { email: a, password, address });
        const untouched = async (what: string) => {
          assert.equal(await failures(svc, a, address), 0, `${what}: the account's count`);
          assert.equal(await failures(svc, "*", address), 0, `${what}: the address's count`);
        };

        // The right password, then the login cannot be stored.
        await svc.db.sql`alter table logins add constraint no_logins check (false) not valid`;
        try {
          for (let i = 0; i < LIMITS.perAddress + 1; i++) {
            await assert.rejects(attempt(PASSWORD), /no_logins/);
          }
          const res = await postSignIn(svc, "/portal/login", { email: a, password: PASSWORD }, {
            "X-Forwarded-For": address,
          });
          await res.body?.cancel();
          assert.equal(res.status, 500, "the portal answers 5xx");
        } finally {
          await svc.db.sql`alter table logins drop constraint no_logins`;
        }
        await untouched("login not stored");

        // A wrong password, and the accounts cannot be read.
        await svc.db.sql`alter table users rename column password_hash to password_hash_away`;
        try {
          for (let i = 0; i < LIMITS.perAddress + 1; i++) {
            await assert.rejects(attempt("wrong"), /password_hash/);
          }
        } finally {
          await svc.db.sql`alter table users rename column password_hash_away to password_hash`;
        }
        await untouched("accounts not read");

        assert.equal((await attempt("wrong")).kind, "refused", "a client's failure still counts");
        assert.equal(await failures(svc, "*", address), 1);
        assert.equal((await attempt(PASSWORD)).kind, "ok");
      } finally {
        await svc.close();
      }
    },
  );
}
