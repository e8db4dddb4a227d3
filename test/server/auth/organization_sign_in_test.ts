/**
 * Portal sign-in per organization: `?org=<slug>` signs in within that organization; without it an
 * e-mail of one organization works as before and one whose password is right in several is asked
 * for the organization; a wrong password, an unknown e-mail, an e-mail only elsewhere and an
 * unknown organization get the same page after the same number of password verifications.
 */
import assert from "node:assert/strict";
import { backends } from "../../helpers/db.ts";
import { startTestService, type TestService } from "../../helpers/service.ts";
import { sharedFixture, uniqueId } from "../../helpers/shared.ts";
import { postSignIn } from "../../helpers/sign_in.ts";
import { PasswordSignIn } from "../../../server/auth/logins.ts";
import { hashPassword, sha256 } from "../../../server/crypto/hashing.ts";

const opts = { sanitizeOps: false, sanitizeResources: false };
const ADMIN = { email: "root@example.com", password: "root-password-0123456789" };
const LIMITS = { perAccount: 100, perAddress: 1000, windowMs: 15 * 60_000 };
const PASSWORD_A = "password-of-agent-a-01";
const PASSWORD_B = "password-of-agent-b-02";

/** Two organizations with an agent of the same e-mail in each. */
interface Pair {
  email: string;
  a: { slug: string; userId: number };
  b: { slug: string; userId: number };
}

for (const backend of backends) {
  const service = sharedFixture(
    () =>
      startTestService(backend, {
        TRUST_PROXY: "true",
        ADMIN_EMAIL: ADMIN.email,
        ADMIN_PASSWORD: ADMIN.password,
      }),
    (svc: TestService) => svc.close(),
  );

  const organization = async (svc: TestService) => {
    const slug = uniqueId("org").toLowerCase();
    const [row] = await svc.db.sql`insert into organizations (slug, name)
      values (${slug}, ${`Org ${slug}`}) returning id`;
    return { slug, id: Number(row.id) };
  };

  const agentIn = async (
    svc: TestService,
    organizationId: number,
    email: string,
    password: string | null,
  ) => {
    const [row] = await svc.db.sql`insert into users
        (role, email, first_name, last_name, password_hash, organization_id)
      values ('agent', ${email}, 'O', 'S',
        ${password ? await hashPassword(password) : "random-sha256$abc"}, ${organizationId})
      returning id`;
    return Number(row.id);
  };

  /** Two organizations, each with an agent of one e-mail: passwords A and B (or one for both). */
  const pair = async (svc: TestService, passwordB = PASSWORD_B): Promise<Pair> => {
    const email = `${uniqueId("twin")}@example.com`;
    const [a, b] = [await organization(svc), await organization(svc)];
    return {
      email,
      a: { slug: a.slug, userId: await agentIn(svc, a.id, email, PASSWORD_A) },
      b: { slug: b.slug, userId: await agentIn(svc, b.id, email, passwordB) },
    };
  };

  /** Signs in from a fresh client address (the limiter counts per address). */
  const signIn = (svc: TestService, fields: Record<string, string>, path = "/portal/login") =>
    postSignIn(svc, path, fields, { "X-Forwarded-For": `10.${uniqueAddress()}` });

  /** The user id of the portal login a sign-in response set, or null. */
  const loginUser = async (svc: TestService, res: Response) => {
    const token = res.headers.getSetCookie().find((c) => c.startsWith("portal_login="))
      ?.split(";")[0].slice("portal_login=".length);
    if (!token) return null;
    const [row] = await svc.db.sql`select user_id from logins where token_hash = ${sha256(token)}`;
    return row ? Number(row.user_id ?? row.userId) : null;
  };

  /** A page without what differs per request (the form token) or per input (the e-mail). */
  const page = async (res: Response) => ({
    status: res.status,
    body: (await res.text())
      .replace(/name="signin_csrf" value="[^"]*"/, 'name="signin_csrf" value=""')
      .replace(/name="email" value="[^"]*"/, 'name="email" value=""'),
  });

  Deno.test(
    `org sign-in: ?org= signs in as that organization's agent [${backend.name}]`,
    opts,
    async () => {
      const svc = await service();
      const p = await pair(svc);
      const form = await (await svc.request(`/portal/login?org=${p.a.slug}`)).text();
      assert.match(form, new RegExp(`<input type="hidden" name="org" value="${p.a.slug}">`));
      assert.match(form, new RegExp(`href="/portal/password-reset\\?org=${p.a.slug}"`));
      const res = await signIn(
        svc,
        { email: p.email, password: PASSWORD_A },
        `/portal/login?org=${p.a.slug}`,
      );
      assert.equal(res.status, 303);
      assert.equal(await loginUser(svc, res), p.a.userId);
      const byField = await signIn(svc, {
        email: p.email.toUpperCase(),
        password: PASSWORD_B,
        org: ` ${p.b.slug.toUpperCase()} `,
      });
      assert.equal(byField.status, 303, "the form field, trimmed and in any case");
      assert.equal(await loginUser(svc, byField), p.b.userId);
    },
  );

  Deno.test(
    `org sign-in: another organization's password gets the wrong-credentials page [${backend.name}]`,
    opts,
    async () => {
      const svc = await service();
      const p = await pair(svc);
      const res = await signIn(svc, { email: p.email, password: PASSWORD_A, org: p.b.slug });
      assert.equal(res.status, 401);
      assert.equal(await loginUser(svc, res), null);
      const body = await res.text();
      assert.match(body, /Wrong organization, e-mail or password\./);
      assert.match(body, new RegExp(`name="org" value="${p.b.slug}"`), "shown to correct it");
    },
  );

  Deno.test(
    `org sign-in: without org, the one account the password is right for signs in [${backend.name}]`,
    opts,
    async () => {
      const svc = await service();
      const p = await pair(svc);
      const a = await signIn(svc, { email: p.email, password: PASSWORD_A });
      assert.equal(a.status, 303);
      assert.equal(await loginUser(svc, a), p.a.userId);
      const b = await signIn(svc, { email: p.email, password: PASSWORD_B });
      assert.equal(b.status, 303);
      assert.equal(await loginUser(svc, b), p.b.userId);
    },
  );

  Deno.test(
    `org sign-in: without org, a password right in several organizations asks which [${backend.name}]`,
    opts,
    async () => {
      const svc = await service();
      const p = await pair(svc, PASSWORD_A);
      const asked = await signIn(svc, { email: p.email, password: PASSWORD_A });
      assert.equal(asked.status, 200);
      assert.equal(await loginUser(svc, asked), null, "no login yet");
      const body = await asked.text();
      assert.match(body, /accounts in several organizations/);
      assert.match(body, /<input type="text" name="org" value="" required/);
      assert.ok(!body.includes(p.a.slug) && !body.includes(p.b.slug), "no organization listed");
      const chosen = await signIn(svc, { email: p.email, password: PASSWORD_A, org: p.b.slug });
      assert.equal(chosen.status, 303);
      assert.equal(await loginUser(svc, chosen), p.b.userId);
    },
  );

  Deno.test(
    `org sign-in: a disabled agent is no candidate; the enabled one signs in [${backend.name}]`,
    opts,
    async () => {
      const svc = await service();
      const p = await pair(svc, PASSWORD_A);
      await svc.db.sql`update users set disabled_at = now() where id = ${p.a.userId}`;
      const res = await signIn(svc, { email: p.email, password: PASSWORD_A });
      assert.equal(res.status, 303);
      assert.equal(await loginUser(svc, res), p.b.userId);
    },
  );

  Deno.test(
    `org sign-in: wrong password, unknown e-mail, only elsewhere and unknown org: one page [${backend.name}]`,
    opts,
    async () => {
      const svc = await service();
      const p = await pair(svc);
      const onlyElsewhere = `${uniqueId("else")}@example.com`;
      const c = await organization(svc);
      await agentIn(svc, c.id, onlyElsewhere, PASSWORD_A);
      const withOrg = (email: string, password: string, org = p.a.slug) =>
        signIn(svc, { email, password, org }).then(page);
      const wrong = await withOrg(p.email, PASSWORD_B);
      assert.equal(wrong.status, 401);
      assert.deepEqual(await withOrg(`${uniqueId("nobody")}@example.com`, PASSWORD_A), wrong);
      assert.deepEqual(await withOrg(onlyElsewhere, PASSWORD_A), wrong);
      const unknownOrg = await withOrg(p.email, PASSWORD_A, uniqueId("nosuch"));
      assert.deepEqual(
        { ...unknownOrg, body: unknownOrg.body.replaceAll(/nosuch\w+/g, p.a.slug) },
        wrong,
      );
      // Without org: a wrong password for an e-mail of two organizations, of one, and unknown.
      const without = (email: string) => signIn(svc, { email, password: "wrong" }).then(page);
      const twice = await without(p.email);
      assert.equal(twice.status, 401);
      assert.match(twice.body, /Wrong e-mail or password\./);
      assert.deepEqual(await without(onlyElsewhere), twice);
      assert.deepEqual(await without(`${uniqueId("nobody")}@example.com`), twice);
    },
  );

  Deno.test(
    `org sign-in: every refusal costs one password verification per possible account [${backend.name}]`,
    opts,
    async () => {
      const svc = await service();
      const p = await pair(svc);
      const c = await organization(svc);
      const onlyElsewhere = `${uniqueId("else")}@example.com`;
      await agentIn(svc, c.id, onlyElsewhere, PASSWORD_A);
      const noPassword = `${uniqueId("nopw")}@example.com`;
      await agentIn(svc, c.id, noPassword, null);
      const signInFn = new PasswordSignIn("agent", 8, LIMITS);
      const cost = async (email: string, password: string, organization?: string) => {
        const before = signInFn.evaluations;
        const r = await signInFn.attempt(svc.deps, {
          email,
          password,
          organization,
          address: "10.250.0.1",
        });
        return { kind: r.kind, verifications: signInFn.evaluations - before };
      };
      const refusedOnce = { kind: "refused", verifications: 1 };
      assert.deepEqual(await cost(p.email, PASSWORD_B, p.a.slug), refusedOnce, "wrong password");
      assert.deepEqual(await cost(`${uniqueId("no")}@x.org`, "x", p.a.slug), refusedOnce);
      assert.deepEqual(await cost(onlyElsewhere, PASSWORD_A, p.a.slug), refusedOnce);
      assert.deepEqual(await cost(p.email, PASSWORD_A, "no-such-org"), refusedOnce);
      assert.deepEqual(await cost(noPassword, "", c.slug), refusedOnce, "no password set");
      assert.deepEqual(await cost(`${uniqueId("no")}@x.org`, "x"), refusedOnce, "unknown, no org");
      assert.deepEqual(await cost(onlyElsewhere, "wrong"), refusedOnce, "one organization");
      // Documented: without org, an e-mail of two organizations is checked against both.
      assert.deepEqual(await cost(p.email, "wrong"), { kind: "refused", verifications: 2 });
      assert.deepEqual(await cost(p.email, PASSWORD_A), { kind: "ok", verifications: 2 });
    },
  );

  Deno.test(
    `org sign-in: the limiter counts the typed e-mail whatever the organization [${backend.name}]`,
    opts,
    async () => {
      const svc = await service();
      const p = await pair(svc);
      const limited = new PasswordSignIn("agent", 8, { ...LIMITS, perAccount: 2 });
      const attempt = (organization: string | undefined, password = "wrong") =>
        limited.attempt(svc.deps, { email: p.email, password, organization, address: "10.250.0.2" })
          .then((r) => r.kind);
      assert.equal(await attempt(p.a.slug), "refused");
      assert.equal(await attempt(p.b.slug), "refused");
      assert.equal(await attempt(undefined, PASSWORD_A), "wait");
      assert.equal(await attempt("another-org", PASSWORD_A), "wait");
    },
  );

  Deno.test(
    `org sign-in: administrators stay global and apart from agents of their e-mail [${backend.name}]`,
    opts,
    async () => {
      const svc = await service();
      const c = await organization(svc);
      const agentId = await agentIn(svc, c.id, ADMIN.email, PASSWORD_A);
      const asAgent = await signIn(svc, { email: ADMIN.email, password: PASSWORD_A });
      assert.equal(await loginUser(svc, asAgent), agentId, "the portal signs the agent in");
      const adminOnPortal = await signIn(svc, { email: ADMIN.email, password: ADMIN.password });
      assert.equal(adminOnPortal.status, 401, "no administrator on the portal");
      await adminOnPortal.body?.cancel();
      const agentOnAdmin = await signIn(svc, {
        email: ADMIN.email,
        password: PASSWORD_A,
        org: c.slug,
      }, "/admin/login");
      assert.equal(agentOnAdmin.status, 401, "no agent on the admin screens");
      await agentOnAdmin.body?.cancel();
      const admin = await signIn(
        svc,
        { email: ADMIN.email, password: ADMIN.password },
        "/admin/login",
      );
      assert.equal(admin.status, 303);
      await admin.body?.cancel();
    },
  );
}

let addresses = 0;

/** A client address no other sign-in of this file used: "x.y.z" of 10.x.y.z. */
function uniqueAddress(): string {
  addresses += 1;
  return `${Math.floor(addresses / 65536) % 256}.${Math.floor(addresses / 256) % 256}.${
    addresses % 256
  }`;
}
