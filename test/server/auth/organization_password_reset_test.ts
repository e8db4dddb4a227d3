/**
 * The portal's lost password per organization: `?org=<slug>` mails only that organization's
 * agent; without it every agent of the e-mail gets its own link, naming its organization, that
 * resets only its own account; the answer is the same page whether the e-mail has accounts, has
 * them only elsewhere, or has none.
 */
import assert from "node:assert/strict";
import { backends } from "../../helpers/db.ts";
import { startTestService, type TestService } from "../../helpers/service.ts";
import { sharedFixture, uniqueId } from "../../helpers/shared.ts";
import { type SmtpSink, startSmtpSink } from "../../helpers/smtp.ts";
import { waitUntil } from "../../helpers/crm_server.ts";
import { postSignIn } from "../../helpers/sign_in.ts";
import { hashPassword, sha256 } from "../../../server/crypto/hashing.ts";

const opts = { sanitizeOps: false, sanitizeResources: false };
const PASSWORD_A = "password-of-agent-a-01";
const PASSWORD_B = "password-of-agent-b-02";
const NEW_PASSWORD = "a-brand-new-passphrase";

interface Fixture {
  svc: TestService;
  smtp: SmtpSink;
}

/** Two organizations with an agent of the same e-mail in each. */
interface Pair {
  email: string;
  a: { slug: string; name: string; userId: number };
  b: { slug: string; name: string; userId: number };
}

let addresses = 0;

for (const backend of backends) {
  const fixture = sharedFixture<Fixture>(async () => {
    const smtp = await startSmtpSink();
    const svc = await startTestService(backend, {
      SMTP_URL: smtp.url,
      MAIL_FROM: "Portal <portal@example.com>",
      MAIL_RETRY_BASE_MS: "50",
      TRUST_PROXY: "true",
    });
    return { svc, smtp };
  }, async ({ svc, smtp }) => {
    await svc.close();
    await smtp.close();
  });

  const organization = async (svc: TestService) => {
    const slug = uniqueId("org").toLowerCase();
    const name = `Org ${slug}`;
    const [row] = await svc.db.sql`insert into organizations (slug, name)
      values (${slug}, ${name}) returning id`;
    return { slug, name, id: Number(row.id) };
  };

  const agentIn = async (svc: TestService, organizationId: number, email: string, pw: string) => {
    const [row] = await svc.db.sql`insert into users
        (role, email, first_name, last_name, password_hash, organization_id)
      values ('agent', ${email}, 'R', 'P', ${await hashPassword(pw)}, ${organizationId})
      returning id`;
    return Number(row.id);
  };

  const pair = async (svc: TestService): Promise<Pair> => {
    const email = `${uniqueId("twin")}@example.com`;
    const [a, b] = [await organization(svc), await organization(svc)];
    return {
      email,
      a: { slug: a.slug, name: a.name, userId: await agentIn(svc, a.id, email, PASSWORD_A) },
      b: { slug: b.slug, name: b.name, userId: await agentIn(svc, b.id, email, PASSWORD_B) },
    };
  };

  /** Asks for a link from a fresh client address; the page without the typed e-mail. */
  const ask = async (
    f: Fixture,
    fields: Record<string, string>,
    path = "/portal/password-reset",
  ) => {
    addresses += 1;
    const res = await f.svc.request(path, {
      method: "POST",
      headers: { "X-Forwarded-For": `10.77.${addresses >> 8}.${addresses & 255}` },
      body: new URLSearchParams(fields),
    });
    const body = (await res.text()).replace(fields.email, "EMAIL");
    return { status: res.status, body };
  };

  /** The reset mails queued for `email` (the outbox keeps every message it was given). */
  const queued = async (f: Fixture, email: string) =>
    (await f.svc.db.sql`select subject from mail_outbox where recipient = ${email}
      and subject like 'Reset%' order by id`).map((r) => String(r.subject));

  const mailsTo = (f: Fixture, email: string, n: number) =>
    waitUntil(() => {
      const got = f.smtp.messages.filter((m) => m.to.includes(email));
      return got.length >= n && got;
    }, `${n} mail(s) to ${email}`);

  const linkIn = (decoded: string) =>
    decoded.match(/http:\/\/portal\.test\/portal\/password-reset\/[A-Za-z0-9_-]{43}/)![0]
      .replace("http://portal.test", "");

  /** Sets a new password with a link; the user id of the login it made. */
  const useLink = async (f: Fixture, link: string) => {
    const res = await f.svc.request(link, {
      method: "POST",
      body: new URLSearchParams({ password: NEW_PASSWORD, confirm: NEW_PASSWORD }),
    });
    assert.equal(res.status, 303);
    const token = res.headers.getSetCookie().find((c) => c.startsWith("portal_login="))!
      .split(";")[0].slice("portal_login=".length);
    const [row] = await f.svc.db.sql`select user_id from logins where token_hash = ${
      sha256(token)
    }`;
    return Number(row.user_id ?? row.userId);
  };

  const signInStatus = async (f: Fixture, fields: Record<string, string>) => {
    addresses += 1;
    const res = await postSignIn(f.svc, "/portal/login", fields, {
      "X-Forwarded-For": `10.78.${addresses >> 8}.${addresses & 255}`,
    });
    await res.body?.cancel();
    return res.status;
  };

  Deno.test(
    `org password reset: ?org= mails only that organization's agent [${backend.name}]`,
    opts,
    async () => {
      const f = await fixture();
      const p = await pair(f.svc);
      const form = await (await f.svc.request(`/portal/password-reset?org=${p.a.slug}`)).text();
      assert.match(form, new RegExp(`<input type="hidden" name="org" value="${p.a.slug}">`));
      assert.match(form, new RegExp(`href="/portal/login\\?org=${p.a.slug}"`));
      const asked = await ask(f, { email: p.email }, `/portal/password-reset?org=${p.a.slug}`);
      assert.equal(asked.status, 200);
      const [mail] = await mailsTo(f, p.email, 1);
      assert.deepEqual(await queued(f, p.email), [
        `Reset your Portal Launcher password (${p.a.name})`,
      ]);
      assert.match(mail.decoded, new RegExp(`your account in the organization ${p.a.name}\\.`));
      assert.equal(await useLink(f, linkIn(mail.decoded)), p.a.userId);
      const withNew = { email: p.email, password: NEW_PASSWORD };
      assert.equal(await signInStatus(f, { ...withNew, org: p.a.slug }), 303);
      assert.equal(await signInStatus(f, { ...withNew, org: p.b.slug }), 401, "B's unchanged");
      assert.equal(await signInStatus(f, { email: p.email, password: PASSWORD_B }), 303);
    },
  );

  Deno.test(
    `org password reset: without org each agent of the e-mail gets its own link [${backend.name}]`,
    opts,
    async () => {
      const f = await fixture();
      const p = await pair(f.svc);
      const asked = await ask(f, { email: p.email });
      assert.equal(asked.status, 200);
      const mails = await mailsTo(f, p.email, 2);
      const subjects = (await queued(f, p.email)).sort();
      assert.deepEqual(
        subjects,
        [
          `Reset your Portal Launcher password (${p.a.name})`,
          `Reset your Portal Launcher password (${p.b.name})`,
        ].sort(),
      );
      const forB = mails.find((m) => m.decoded.includes(`organization ${p.b.name}.`))!;
      const forA = mails.find((m) => m.decoded.includes(`organization ${p.a.name}.`))!;
      assert.equal(await useLink(f, linkIn(forB.decoded)), p.b.userId);
      assert.equal(await signInStatus(f, { email: p.email, password: PASSWORD_A }), 303);
      assert.equal(await useLink(f, linkIn(forA.decoded)), p.a.userId, "A's link still works");
    },
  );

  Deno.test(
    `org password reset: one e-mail of one organization gets today's mail [${backend.name}]`,
    opts,
    async () => {
      const f = await fixture();
      const c = await organization(f.svc);
      const email = `${uniqueId("single")}@example.com`;
      const userId = await agentIn(f.svc, c.id, email, PASSWORD_A);
      assert.equal((await ask(f, { email })).status, 200);
      const [mail] = await mailsTo(f, email, 1);
      assert.equal(mail.subject, "Reset your Portal Launcher password");
      assert.doesNotMatch(mail.decoded, /organization/);
      assert.equal(await useLink(f, linkIn(mail.decoded)), userId);
    },
  );

  Deno.test(
    `org password reset: the same page whether the e-mail has accounts there, elsewhere or none [${backend.name}]`,
    opts,
    async () => {
      const f = await fixture();
      const p = await pair(f.svc);
      const c = await organization(f.svc);
      const onlyElsewhere = `${uniqueId("else")}@example.com`;
      await agentIn(f.svc, c.id, onlyElsewhere, PASSWORD_A);
      const nobody = `${uniqueId("nobody")}@example.com`;
      const there = await ask(f, { email: p.email, org: p.a.slug });
      assert.equal(there.status, 200);
      assert.deepEqual(await ask(f, { email: onlyElsewhere, org: p.a.slug }), there);
      assert.deepEqual(await ask(f, { email: nobody, org: p.a.slug }), there);
      const unknownOrg = await ask(f, { email: p.email, org: "no-such-organization" });
      assert.deepEqual(
        { ...unknownOrg, body: unknownOrg.body.replace("no-such-organization", p.a.slug) },
        there,
      );
      const two = await ask(f, { email: `${uniqueId("two")}@example.com` });
      assert.deepEqual(await ask(f, { email: p.email }), two, "without org: two accounts");
      await mailsTo(f, p.email, 3);
      assert.deepEqual(await queued(f, onlyElsewhere), [], "no mail for another organization");
      assert.deepEqual(await queued(f, nobody), []);
      assert.equal((await queued(f, p.email)).length, 3, "one with org, two without");
    },
  );
}
