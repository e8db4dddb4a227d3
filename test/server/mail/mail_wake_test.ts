/**
 * Mail queued inside a write wakes this process's mail worker once the write commits
 * (server/mail/queue.ts, server/transaction.ts), and never when it rolls back: no call site wakes
 * the worker by hand. The admin's lost-password request and reset are the writers here; the
 * screen-sharing invitation mail uses the same queueMail.
 */
import assert from "node:assert/strict";
import { backends } from "../../helpers/db.ts";
import { startTestService, type TestService } from "../../helpers/service.ts";
import { callsDuring, sharedFixture } from "../../helpers/shared.ts";
import { type SmtpSink, startSmtpSink } from "../../helpers/smtp.ts";
import { waitUntil } from "../../helpers/crm_server.ts";
import { requestPasswordReset, resetPassword } from "../../../server/auth/password_reset.ts";
import { inTransaction } from "../../../server/transaction.ts";
import { queueMail } from "../../../server/mail/queue.ts";
import type { Deps } from "../../../server/deps.ts";

const opts = { sanitizeOps: false, sanitizeResources: false };
const ADMIN = { email: "root@example.com", password: "root-password-0123456789" };

/** Counts the wake-ups of the worker of `deps` while `work` runs. */
const wakesDuring = (deps: Deps, work: () => Promise<unknown>) =>
  callsDuring(deps.mail!, "wake", work);

for (const backend of backends) {
  const fixture = sharedFixture<{ svc: TestService; smtp: SmtpSink }>(async () => {
    const smtp = await startSmtpSink();
    const svc = await startTestService(backend, {
      SMTP_URL: smtp.url,
      MAIL_FROM: "Portal <portal@example.com>",
      ADMIN_EMAIL: ADMIN.email,
      ADMIN_PASSWORD: ADMIN.password,
    });
    return { svc, smtp };
  }, async ({ svc, smtp }) => {
    await svc.close();
    await smtp.close();
  });
  const name = (s: string) => `mail wake-ups: ${s} [${backend.name}]`;

  Deno.test(
    name("a reset request and a reset wake the mail worker once each, after commit"),
    opts,
    async () => {
      const { svc, smtp } = await fixture();
      const deps = svc.deps;
      const before = smtp.messages.length;
      let token = "";
      const requested = await wakesDuring(deps, async () => {
        const r = await requestPasswordReset(deps, {
          email: ADMIN.email,
          role: "admin",
          address: "192.0.2.10",
          linkBase: "http://portal.test/admin/password-reset",
        });
        assert.equal(r.kind, "sent");
      });
      assert.equal(requested, 1);
      await waitUntil(() => smtp.messages.length > before, "the reset mail");
      token = smtp.messages.at(-1)!.decoded.match(/password-reset\/([A-Za-z0-9_-]+)/)![1];
      const reset = await wakesDuring(deps, async () => {
        const r = await resetPassword(deps, {
          token,
          role: "admin",
          password: "violet-harbour-lantern-8041",
          loginHours: 1,
        });
        assert.equal(r.kind, "ok");
      });
      assert.equal(reset, 1, "the notification of the change");
    },
  );

  Deno.test(
    name("no account, a refused reset and a rolled-back write wake nothing"),
    opts,
    async () => {
      const { svc } = await fixture();
      const deps = svc.deps;
      const none = await wakesDuring(deps, () =>
        requestPasswordReset(deps, {
          email: "nobody@example.com",
          role: "admin",
          address: "192.0.2.11",
          linkBase: "http://portal.test/admin/password-reset",
        }));
      assert.equal(none, 0);
      const refused = await wakesDuring(deps, async () => {
        const r = await resetPassword(deps, {
          token: "not-a-link",
          role: "admin",
          password: "whatever-password-123",
          loginHours: 1,
        });
        assert.equal(r.kind, "invalid_link");
      });
      assert.equal(refused, 0);
      const rolledBack = await wakesDuring(deps, async () => {
        await assert.rejects(
          inTransaction(deps, async (w) => {
            await queueMail(w, {
              recipient: "x@example.com",
              subject: "never sent",
              text: "never sent",
              html: "<p>never sent</p>",
            });
            throw new Error("the write fails after queuing");
          }),
          /the write fails/,
        );
      });
      assert.equal(rolledBack, 0);
      const [{ n }] = await deps.sql<{ n: number }[]>`
        select count(*)::int as n from mail_outbox where subject = 'never sent'`;
      assert.equal(n, 0, "the queued mail rolled back with its write");
    },
  );
}
