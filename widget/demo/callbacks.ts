/**
 * The mock CRM's callback receiver: POST /callbacks verifies each event with the
 * `standardwebhooks` package (the app's callback secret), keeps the last 50 in memory, and
 * GET /callbacks/events lists them for the page, which shows them live beside the launchers.
 */
import { Webhook } from "standardwebhooks";

/** A received event, as the page shows it. */
export interface InboxEntry {
  receivedAt: string;
  webhookId: string;
  type: string;
  referenceId: string | null;
  status: string | null;
  verified: boolean;
}

/** The receiver: its request handler and what it received (newest first). */
export function callbackInbox(secret: string | undefined) {
  const entries: InboxEntry[] = [];
  const verifier = secret ? new Webhook(secret) : null;
  return {
    entries,
    async handle(req: Request): Promise<Response> {
      const url = new URL(req.url);
      if (url.pathname === "/callbacks/events") {
        return Response.json(entries, { headers: { "Cache-Control": "no-store" } });
      }
      if (req.method !== "POST") return new Response(null, { status: 405 });
      const body = await req.text();
      const headers = Object.fromEntries(req.headers);
      let verified = false;
      try {
        verifier?.verify(body, headers);
        verified = verifier !== null;
      } catch {
        // A receiver refuses what it cannot verify; the demo shows it, marked, and says 400.
      }
      let event: { type?: string; data?: { referenceId?: string; status?: string } } = {};
      try {
        event = JSON.parse(body);
      } catch { /* shown as unknown */ }
      entries.unshift({
        receivedAt: new Date().toISOString(),
        webhookId: headers["webhook-id"] ?? "",
        type: event.type ?? "unknown",
        referenceId: event.data?.referenceId ?? null,
        status: event.data?.status ?? null,
        verified,
      });
      entries.splice(50);
      return verified || !verifier
        ? new Response(null, { status: 204 })
        : new Response("signature not verified", { status: 400 });
    },
  };
}

/** The page's live list: polls /callbacks/events every 2 seconds. */
export const INBOX_HTML =
  `<section aria-labelledby="cb-title"><h2 id="cb-title">Callbacks received</h2>
<p>Events the portal sent back to this CRM (verified with Standard Webhooks), newest first.</p>
<ol id="callbacks" aria-live="polite"></ol></section>
<script type="module">
const list = document.getElementById("callbacks");
async function refresh() {
  const events = await (await fetch("/callbacks/events")).json();
  list.replaceChildren(...events.map((e) => {
    const li = document.createElement("li");
    li.textContent = e.receivedAt.slice(11, 19) + " " + e.type + " " + (e.referenceId ?? "") +
      (e.status ? " (" + e.status + ")" : "") + (e.verified ? " ✓ verified" : " ✗ NOT verified");
    return li;
  }));
}
refresh();
setInterval(refresh, 2000);
</script>`;
