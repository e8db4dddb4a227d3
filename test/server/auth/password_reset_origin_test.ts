/**
 * Password-reset links are sent away: behind a trusted proxy they are built from PUBLIC_URL,
 * whatever X-Forwarded-Host the request carried (left-most or right-most entry, allow-listed or
 * not), on the portal and the admin screens.
 */
import assert from "node:assert/strict";
import { backends } from "../../helpers/db.ts";
import { startTestService, type TestService } from "../../helpers/service.ts";
import { sharedFixture, uniqueId } from "../../helpers/shared.ts";
import { type SmtpSink, startSmtpSink } from "../../helpers/smtp.ts";
import { waitUntil } from "../../helpers/crm_server.ts";

const opts = { sanitizeOps: false, sanitizeResources: false };

interface Fixture {
  svc: TestService;
  smtp: SmtpSink;
}

/** X-Forwarded-Host values an attacker may get through: each request carries one. */
const POISONED = [
  "evil.test", // the proxy passed the attacker's Host on
  "evil.test, portal.test", // left-most written by the client
  "portal.test, evil.test", // right-most: the proxy wrote what the client sent as Host
  "alt.portal.test", // allow-listed for same-request uses, still never in a link sent away
];

let addresses = 0;

for (const backend of backends) {
  const fixture = sharedFixture<Fixture>(async () => {
    const smtp = await startSmtpSink();
    const svc = await startTestService(backend, {
      SMTP_URL: smtp.url,
      MAIL_FROM: "Portal <portal@example.com>",
      MAIL_RETRY_BASE_MS: "50",
      TRUST_PROXY: "true",
      PUBLIC_HOSTS: "alt.portal.test",
    });
    return { svc, smtp };
  }, async ({ svc, smtp }) => {
    await svc.close();
    await smtp.close();
  });

  const user = async (svc: TestService, role: "agent" | "admin") => {
    const email = `${uniqueId(role)}@example.com`;
    await svc.db.sql`insert into users (role, email, first_name, last_name)
      values (${role}, ${email}, 'R', 'O')`;
    return email;
  };

  const linksTo = async (f: Fixture, email: string) => {
    const [mail] = await waitUntil(() => {
      const got = f.smtp.messages.filter((m) => m.to.includes(email));
      return got.length >= 1 && got;
    }, `mail to ${email}`);
    return [...mail.decoded.matchAll(/https?:\/\/[^\s"'<>]+password-reset\/[A-Za-z0-9_-]+/g)]
      .map((m) => m[0]);
  };

  for (
    const [role, path, linkPrefix] of [
      ["agent", "/portal/password-reset", "http://portal.test/portal/password-reset/"],
      ["admin", "/admin/password-reset", "http://portal.test/admin/password-reset/"],
    ] as const
  ) {
    Deno.test(
      `password reset: a forwarded host never reaches the ${role}'s link [${backend.name}]`,
      opts,
      async () => {
        const f = await fixture();
        for (const host of POISONED) {
          const email = await user(f.svc, role);
          const res = await f.svc.request(path, {
            method: "POST",
            headers: {
              "X-Forwarded-Host": host,
              "X-Forwarded-Proto": "https",
              "X-Forwarded-For": `10.77.0.${++addresses}`,
            },
            body: new URLSearchParams({ email }),
          });
          assert.equal(res.status, 200, `${host}: ${await res.text()}`);
          const links = await linksTo(f, email);
          assert.ok(links.length > 0, `${host}: the mail carries the link`);
          for (const link of links) {
            assert.ok(link.startsWith(linkPrefix), `${host}: ${link}`);
          }
        }
      },
    );
  }
}
