/**
 * Outgoing mail over SMTP (nodemailer, configured by SMTP_URL: `smtp://` with STARTTLS when the
 * server offers it, or `smtps://` with TLS from the start; `user:pass@` for AUTH). Messages are
 * queued in PostgreSQL by the request and sent by a worker in every process, so a slow or absent
 * mail server never slows a page; failures are retried (MAIL_RETRY_BASE_MS × 2^(attempt−1), ten
 * attempts). A sent message's bodies are blanked in the outbox.
 */
// @ts-types="npm:@types/nodemailer@8.0.2"
import type nodemailer from "nodemailer";
import type { Sql } from "../../db/mod.ts";
import { claimMail, finishMail } from "../../db/queries/mail_outbox.ts";
import { PollingLoop } from "../background/polling_loop.ts";
import { log } from "../log.ts";

/** Attempts per message before it is failed. */
export const MAIL_MAX_ATTEMPTS = 10;

/** What the mail worker is configured with. */
export interface MailSettings {
  smtpUrl: string;
  from: string;
  retryBaseMs: number;
  timeoutMs: number;
}

/** Sends the outbox. */
export class MailWorker {
  #loop: PollingLoop;
  #transport: ReturnType<typeof nodemailer.createTransport>;

  /**
   * A worker with its SMTP transport. nodemailer (with the Node.js modules it pulls in, about
   * 2 MB of heap and 4 MB resident) is loaded here, so a service without SMTP_URL never loads it.
   */
  static async create(sql: Sql, settings: MailSettings): Promise<MailWorker> {
    const { default: mailer } = await import("nodemailer");
    const transport = mailer.createTransport(settings.smtpUrl, {
      connectionTimeout: settings.timeoutMs,
      greetingTimeout: settings.timeoutMs,
      socketTimeout: settings.timeoutMs,
    });
    return new MailWorker(sql, settings, transport);
  }

  private constructor(
    private readonly sql: Sql,
    private readonly settings: MailSettings,
    transport: ReturnType<typeof nodemailer.createTransport>,
  ) {
    this.#transport = transport;
    const poll = Math.min(5_000, Math.max(50, Math.round(settings.retryBaseMs / 2)));
    this.#loop = new PollingLoop("mail", () => this.runOnce(), poll);
  }

  start(): void {
    this.#loop.start();
  }

  /** Stops; closes the SMTP transport unless a start came meanwhile (its run sends with it). */
  async stop(): Promise<void> {
    await this.#loop.stop();
    if (!this.#loop.running) this.#transport.close();
  }

  /** Sends what was just queued without waiting for the next poll. */
  wake(): void {
    this.#loop.wake();
  }

  /** Claims and sends one batch; returns how many messages it claimed. */
  async runOnce(): Promise<number> {
    const batch = await claimMail(this.sql, 8, this.settings.timeoutMs * 3 + 2_000);
    await Promise.all(batch.map(async (m) => {
      try {
        await this.#transport.sendMail({
          from: this.settings.from,
          to: m.recipient,
          subject: m.subject,
          text: m.text,
          html: m.html,
        });
        await finishMail(this.sql, m.id, { status: "sent" });
      } catch (err) {
        const error = (err as Error).message.slice(0, 500);
        const last = m.attempts >= MAIL_MAX_ATTEMPTS;
        log.warn("mail not sent", { mail: m.id, attempt: m.attempts, error, retried: !last });
        await finishMail(
          this.sql,
          m.id,
          last ? { status: "failed", error } : {
            status: "pending",
            error,
            retryInMs: this.settings.retryBaseMs * 2 ** (m.attempts - 1),
          },
        );
      }
    }));
    return batch.length;
  }
}
