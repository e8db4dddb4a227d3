/** The password sign-in limiter: reserved attempts, growing delays, no account enumeration. */
import assert from "node:assert/strict";
import { backends } from "../../helpers/db.ts";
import { startTestService, type TestService } from "../../helpers/service.ts";
import { sharedFixture, uniqueId } from "../../helpers/shared.ts";
import { PasswordSignIn } from "../../../server/auth/logins.ts";
import { hashPassword } from "../../../server/crypto/hashing.ts";

const opts = { sanitizeOps: false, sanitizeResources: false };
const LIMITS = { perAccount: 3, perAddress: 1000, windowMs: 15 * 60_000 };

for (const backend of backends) {
  const service = sharedFixture(
    () => startTestService(backend),
    (svc: TestService) => svc.close(),
  );

  const agentWithPassword = async (svc: TestService, password: string | null) => {
    const email = `${uniqueId("si")}@example.com`;
    await svc.db.sql`insert into users (role, email, first_name, last_name, password_hash)
      values ('agent', ${email}, 'S', 'I',
        ${password ? await hashPassword(password) : "random-sha256$abc"})`;
    return email;
  };

  Deno.test(
    `sign-in: 50 parallel wrong passwords are checked at most limit times [${backend.name}]`,
    opts,
    async () => {
      const svc = await service();
      const email = await agentWithPassword(svc, "right-password-01");
      const signIn = new PasswordSignIn("agent", 8, LIMITS);
      const results = await Promise.all(Array.from(
        { length: 50 },
        () => signIn.attempt(svc.deps, { email, password: "wrong", address: "10.9.0.1" }),
      ));
      assert.ok(
        signIn.evaluations <= LIMITS.perAccount,
        `${signIn.evaluations} password checks`,
      );
      assert.equal(results.filter((r) => r.kind === "wait").length, 50 - signIn.evaluations);
      assert.ok(results.every((r) => r.kind !== "ok"));
    },
  );

  Deno.test(
    `sign-in: failures slow one address down without locking the account [${backend.name}]`,
    opts,
    async () => {
      const svc = await service();
      const email = await agentWithPassword(svc, "right-password-01");
      const signIn = new PasswordSignIn("agent", 8, LIMITS);
      const kinds: string[] = [];
      for (let i = 0; i < LIMITS.perAccount + 2; i++) {
        kinds.push(
          (await signIn.attempt(svc.deps, {
            email,
            password: "wrong",
            address: "10.9.0.2",
          })).kind,
        );
      }
      assert.deepEqual(kinds, [...Array(LIMITS.perAccount).fill("refused"), "wait", "wait"]);
      const waited = await signIn.attempt(svc.deps, {
        email,
        password: "right-password-01",
        address: "10.9.0.2",
      });
      assert.equal(waited.kind, "wait", "even the right password waits from that address");
      if (waited.kind === "wait") assert.ok(waited.ms > 0 && waited.ms <= 1000, `${waited.ms}`);
      const elsewhere = await signIn.attempt(svc.deps, {
        email,
        password: "right-password-01",
        address: "10.9.0.3",
      });
      assert.equal(elsewhere.kind, "ok", "the real user is not locked out");
    },
  );

  Deno.test(
    `sign-in: unknown accounts, accounts without a password and wrong passwords take the same time [${backend.name}]`,
    opts,
    async () => {
      const svc = await service();
      const known = await agentWithPassword(svc, "right-password-01");
      const noPassword = await agentWithPassword(svc, null);
      const signIn = new PasswordSignIn("agent", 8, { ...LIMITS, perAccount: 100 });
      const time = async (email: string) => {
        const samples: number[] = [];
        for (let i = 0; i < 3; i++) {
          const start = performance.now();
          const r = await signIn.attempt(svc.deps, {
            email,
            password: "wrong",
            address: "10.9.1.1",
          });
          samples.push(performance.now() - start);
          assert.equal(r.kind, "refused");
        }
        return samples.sort((a, b) => a - b)[1];
      };
      const [a, b, c] = [
        await time(known),
        await time(`${uniqueId("nobody")}@x.org`),
        await time(noPassword),
      ];
      const slowest = Math.max(a, b, c);
      const fastest = Math.min(a, b, c);
      assert.ok(fastest > slowest * 0.5, `known ${a} ms, unknown ${b} ms, no password ${c} ms`);
      assert.equal(signIn.evaluations, 9, "every refusal ran one PBKDF2 verification");
    },
  );
}
