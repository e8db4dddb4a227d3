/** Queuing a mail inside a write: the mail worker is woken only once the write commits. */
import { enqueueMail, type Mail } from "../../db/queries/mail_outbox.ts";
import type { Write } from "../transaction.ts";

/** Queues `m` in the write's transaction; its commit wakes this process's mail worker. */
export async function queueMail(w: Write, m: Mail): Promise<void> {
  await enqueueMail(w.tx, m);
  w.after.mailQueued();
}
