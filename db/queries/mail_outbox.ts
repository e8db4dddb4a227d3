/** SQL of the mail outbox: queued in the caller's transaction, claimed with SKIP LOCKED. */
import type { Sql, Tx } from "../mod.ts";

/** A message to send. */
export interface Mail {
  recipient: string;
  subject: string;
  text: string;
  html: string;
}

/** Queues a message (in the caller's transaction). */
export async function enqueueMail(tx: Tx, m: Mail): Promise<void> {
  await tx`
    insert into mail_outbox (recipient, subject, text_body, html_body)
    values (${m.recipient}, ${m.subject}, ${m.text}, ${m.html})
  `;
}

/** A claimed message. */
export interface QueuedMail extends Mail {
  id: number;
  attempts: number;
}

/** Claims up to `limit` due messages for `leaseMs` (expired leases of dead workers too). */
export async function claimMail(sql: Sql, limit: number, leaseMs: number): Promise<QueuedMail[]> {
  return await sql<QueuedMail[]>`
    with due as (
      select id from mail_outbox
      where status in ('pending', 'sending') and next_attempt_at <= now()
        and (status = 'pending' or lease_until < now())
      order by next_attempt_at, id
      limit ${limit}
      for update skip locked
    )
    update mail_outbox m set status = 'sending', attempts = m.attempts + 1,
      lease_until = now() + ${leaseMs} * interval '1 millisecond', next_attempt_at = now()
    from due where m.id = due.id
    returning m.id, m.recipient, m.subject, m.text_body as text, m.html_body as html, m.attempts
  `;
}

/** Records a message's outcome: sent (bodies blanked), retried later, or failed. */
export async function finishMail(
  sql: Sql,
  id: number,
  outcome: { status: "sent" } | { status: "failed"; error: string } | {
    status: "pending";
    error: string;
    retryInMs: number;
  },
): Promise<void> {
  const error = outcome.status === "sent" ? null : outcome.error;
  const retry = outcome.status === "pending" ? outcome.retryInMs : 0;
  await sql`
    update mail_outbox set
      status = ${outcome.status},
      lease_until = null,
      last_error = ${error},
      next_attempt_at = now() + ${retry} * interval '1 millisecond',
      sent_at = case when ${outcome.status} = 'sent' then now() end,
      text_body = case when ${outcome.status} = 'sent' then '' else text_body end,
      html_body = case when ${outcome.status} = 'sent' then '' else html_body end
    where id = ${id} and status = 'sending'
  `;
}

/** Deletes sent and failed messages older than a week (housekeeping). */
export async function deleteOldMail(sql: Sql): Promise<number> {
  const rows = await sql`
    delete from mail_outbox
    where status in ('sent', 'failed') and coalesce(sent_at, next_attempt_at) < now() - interval '7 days'
    returning 1
  `;
  return rows.length;
}
