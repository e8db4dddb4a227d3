/**
 * The demo host app: a small mock CRM (a contact list and case pages) that embeds
 * <portal-launcher> three ways (tab, self, iframe) and signs launches on its own server with the
 * signer. The browser only sends the case id; the server looks the case up and builds the payload.
 */
import { createSignHandler } from "../signer/mod.ts";
import { callbackInbox, INBOX_HTML } from "./callbacks.ts";

/** Demo settings. */
export interface DemoOptions {
  /** The portal's base URL with its prefix, e.g. http://localhost:8000/portal. */
  portalUrl: string;
  appName: string;
  apiKey: string;
  /** The app's callback signing secret (whsec_...), to verify the callbacks it receives. */
  callbackSecret?: string;
}

/** A case of the mock CRM. */
interface Case {
  id: string;
  subject: string;
  contact: { id: string; firstName: string; lastName: string; email: string; phone: string };
}

/** The mock CRM's cases. */
export const CASES: Case[] = [
  {
    id: "CASE00017",
    subject: "Printer offline on the 3rd floor",
    contact: {
      id: "C0099",
      firstName: "Grace",
      lastName: "Hopper",
      email: "grace.hopper@example.org",
      phone: "5559876543",
    },
  },
  {
    id: "CASE00018",
    subject: "VPN drops every hour",
    contact: {
      id: "C0100",
      firstName: "Zoë",
      lastName: "O'Brien",
      email: "zoe.obrien@example.org",
      phone: "5551230000",
    },
  },
  {
    id: "CASE00019",
    subject: "Laptop will not start",
    contact: {
      id: "C0101",
      firstName: "José",
      lastName: "Núñez",
      email: "jose.nunez@example.org",
      phone: "5554445555",
    },
  },
];

/** The CRM's signed-in user (a real CRM takes it from its own session). */
export const DEMO_USER = {
  id: "demoagent1",
  email: "demo.agent@example.com",
  first_name: "Dana",
  last_name: "Agent",
  locale: "en",
};

function escape(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

function layout(portalUrl: string, title: string, body: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escape(title)} · Mock CRM</title>
<script type="module" src="${escape(portalUrl)}/widget/portal-launcher.js"></script>
<style>
body{font-family:system-ui,sans-serif;margin:0;color:#1f2933}header{background:#3c366b;color:#fff;
padding:.7rem 1rem}header a{color:#fff}main{padding:1rem;max-width:60rem}table{border-collapse:collapse}
td,th{border:1px solid #ddd;padding:.3rem .6rem;text-align:left}.launchers{display:flex;gap:1rem;
flex-wrap:wrap;align-items:flex-start}portal-launcher{--portal-launcher-frame-width:380px;
--portal-launcher-frame-height:560px}
</style></head><body><header><a href="/">Mock CRM</a> · signed in as ${DEMO_USER.first_name}
${DEMO_USER.last_name}</header><main>${body}</main></body></html>`;
}

/** The demo's request handler. */
export function demoApp(options: DemoOptions): (req: Request) => Promise<Response> {
  const sign = createSignHandler({
    portalUrl: options.portalUrl,
    appName: options.appName,
    apiKey: options.apiKey,
    user: () => DEMO_USER,
    allow: ["caseId", "target"],
    parameters: (_req, requested) => {
      const found = CASES.find((c) => c.id === requested.caseId);
      if (!found) return {}; // the service's schema then names every missing field
      return {
        target: requested.target,
        referenceNumber: found.id,
        referenceId: found.id,
        contactId: found.contact.id,
        contactFirstName: found.contact.firstName,
        contactLastName: found.contact.lastName,
        contactEmail: found.contact.email,
        contactPhone: found.contact.phone,
        customFields: { priority: "high" },
      };
    },
  });
  const inbox = callbackInbox(options.callbackSecret);
  const html = (text: string, status = 200) =>
    new Response(text, { status, headers: { "Content-Type": "text/html; charset=utf-8" } });

  return async (req) => {
    const url = new URL(req.url);
    if (url.pathname === "/sign") return await sign(req);
    if (url.pathname.startsWith("/callbacks")) return await inbox.handle(req);
    if (url.pathname === "/") {
      const rows = CASES.map((c) =>
        `<tr><td><a href="/cases/${c.id}">${c.id}</a></td><td>${escape(c.subject)}</td>` +
        `<td>${escape(c.contact.firstName)} ${escape(c.contact.lastName)}</td></tr>`
      ).join("");
      return html(layout(
        options.portalUrl,
        "Cases",
        `<h1>Cases</h1><table><thead><tr><th>Case</th><th>Subject</th><th>Contact</th></tr>` +
          `</thead><tbody>${rows}</tbody></table>`,
      ));
    }
    const match = url.pathname.match(/^\/cases\/([A-Z0-9]+)$/);
    const found = match && CASES.find((c) => c.id === match[1]);
    if (!found) return html(layout(options.portalUrl, "Not found", "<h1>Not found</h1>"), 404);
    const params = (target: string) =>
      escape(JSON.stringify({ caseId: found.id, ...(target ? { target } : {}) }));
    return html(layout(
      options.portalUrl,
      found.id,
      `<h1>${found.id}: ${escape(found.subject)}</h1>
<p>Contact: ${escape(found.contact.firstName)} ${escape(found.contact.lastName)}
(${escape(found.contact.email)})</p>
<div class="launchers">
<portal-launcher id="launch-tab" sign-url="/sign" parameters="${params("")}" validate>
  Open in a new tab</portal-launcher>
<portal-launcher id="launch-self" sign-url="/sign" target="self" parameters="${params("")}">
  Open here</portal-launcher>
<portal-launcher id="launch-iframe" sign-url="/sign" target="iframe"
  parameters="${params("embedded")}">Open beside the case</portal-launcher>
</div>
${INBOX_HTML}`,
    ));
  };
}
