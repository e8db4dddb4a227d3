/**
 * A real SMTP server for tests (the `smtp-server` npm package): it takes every message over the
 * wire and keeps it, decoded enough to read its recipients, subject and text.
 */
import { SMTPServer } from "smtp-server";

/** One received message. */
export interface ReceivedMail {
  to: string[];
  raw: string;
  subject: string;
  /** The raw message with quoted-printable soft breaks and escapes undone. */
  decoded: string;
}

/** A running SMTP server. */
export interface SmtpSink {
  port: number;
  url: string;
  messages: ReceivedMail[];
  close(): Promise<void>;
}

function decodeQuotedPrintable(text: string): string {
  const bytes = text.replace(/=\r?\n/g, "").replace(
    /=([0-9A-F]{2})/g,
    (_, hex) => String.fromCharCode(parseInt(hex, 16)),
  );
  return new TextDecoder().decode(Uint8Array.from(bytes, (c) => c.charCodeAt(0) & 0xff));
}

function decodeSubject(raw: string): string {
  const line = raw.match(/^Subject: (.*(?:\r?\n[ \t].*)*)/m)?.[1] ?? "";
  return line.replace(/\r?\n[ \t]/g, " ").replace(
    /=\?UTF-8\?([BQ])\?([^?]*)\?=\s*/gi,
    (_, kind: string, data: string) =>
      kind.toUpperCase() === "B"
        ? new TextDecoder().decode(Uint8Array.from(atob(data), (c) => c.charCodeAt(0)))
        : decodeQuotedPrintable(data.replace(/_/g, " ")),
  ).trim();
}

/** Starts an SMTP server on 127.0.0.1 (`port` 0: any free port). */
export async function startSmtpSink(port = 0): Promise<SmtpSink> {
  const messages: ReceivedMail[] = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ["STARTTLS"],
    logger: false,
    // deno-lint-ignore no-explicit-any
    onData(stream: any, session: any, callback: (err?: Error) => void) {
      const chunks: Uint8Array[] = [];
      stream.on("data", (c: Uint8Array) => chunks.push(c));
      stream.on("end", () => {
        const raw = new TextDecoder().decode(
          chunks.reduce((all, c) => {
            const out = new Uint8Array(all.length + c.length);
            out.set(all);
            out.set(c, all.length);
            return out;
          }, new Uint8Array()),
        );
        messages.push({
          to: session.envelope.rcptTo.map((r: { address: string }) => r.address),
          raw,
          subject: decodeSubject(raw),
          decoded: decodeQuotedPrintable(raw),
        });
        callback();
      });
    },
  });
  await new Promise<void>((resolve, reject) => {
    server.on("error", reject);
    server.listen(port, "127.0.0.1", () => resolve());
  });
  const actual = (server.server.address() as { port: number }).port;
  return {
    port: actual,
    url: `smtp://127.0.0.1:${actual}`,
    messages,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
