/**
 * The HTML forms the fuzzer posts to: every page a GET route of the admin screens or the portal
 * renders (as a signed-in administrator or agent) is read, and each `<form method="post">` on it
 * becomes a target with its field names and hidden values (the CSRF token among them). Every POST
 * route of those families that no page links a form to is a target too, with the family's CSRF
 * token as its only field, so no handler escapes the fuzzer because no page shows its form.
 */
import { samplePath, type WalkedRoute } from "../../helpers/access_walk.ts";
import type { TestService } from "../../helpers/service.ts";

/** One form target. */
export interface Form {
  action: string;
  /** Field names, in page order (repeated names once). */
  fields: string[];
  /** Values of hidden inputs (CSRF tokens, ids) by name. */
  hidden: Record<string, string>;
  /** The cookies the page was read with (login, pre-session sign-in cookie). */
  cookie: string;
}

/** Where the fuzzer reads and posts: the admin screens and the portal under /portal. */
const FAMILIES = [
  { prefix: "/admin", cookie: "admin" as const },
  { prefix: "/portal", cookie: "agent" as const },
];

const decode = (s: string) =>
  s.replace(/&#(\d+);/g, (_, n) => String.fromCharCode(Number(n))).replace(/&quot;/g, '"')
    .replace(/&amp;/g, "&").replace(/&lt;/g, "<").replace(/&gt;/g, ">");

/** The post forms of one page. */
export function formsOf(html: string, cookie: string): Form[] {
  const out: Form[] = [];
  for (const m of html.matchAll(/<form\b([^>]*)>([\s\S]*?)<\/form>/g)) {
    const attrs = m[1];
    if (!/method="post"/i.test(attrs)) continue;
    const action = decode(/action="([^"]*)"/.exec(attrs)?.[1] ?? "");
    if (!action.startsWith("/")) continue;
    const fields: string[] = [];
    const hidden: Record<string, string> = {};
    for (const input of m[2].matchAll(/<(input|select|textarea|button)\b([^>]*)>/g)) {
      const name = /\bname="([^"]+)"/.exec(input[2])?.[1];
      if (!name) continue;
      if (!fields.includes(name)) fields.push(decode(name));
      const value = /\bvalue="([^"]*)"/.exec(input[2])?.[1];
      if (/type="hidden"/.test(input[2]) && value !== undefined) hidden[name] = decode(value);
    }
    out.push({ action, fields, hidden, cookie });
  }
  return out;
}

/** A concrete path for a route, known values first (`replace` by param name), then samples. */
function pathFor(route: string, replace: Record<string, string>): string {
  return samplePath(
    route.replace(/:([A-Za-z_]+)(\{[^}]*\})?/g, (m, name) => replace[name] ?? m),
  );
}

/** Reads every page of the families and answers their forms (one per action and field set). */
export async function scrapeForms(
  svc: TestService,
  routes: readonly WalkedRoute[],
  opts: { admin: string; agent: string; replace: Record<string, string> },
): Promise<Form[]> {
  const forms = new Map<string, Form>();
  const csrfOf: Record<string, string> = {};
  for (const family of FAMILIES) {
    for (const route of routes) {
      if (route.method !== "GET" || !route.path.startsWith(`${family.prefix}/`)) continue;
      if (route.path.includes("/assets/") || route.path.includes("/widget/")) continue;
      const res = await svc.request(pathFor(route.path, opts.replace), {
        headers: { Cookie: opts[family.cookie], Accept: "text/html" },
      });
      const html = await res.text();
      if (!res.headers.get("Content-Type")?.startsWith("text/html")) continue;
      const set = res.headers.get("Set-Cookie")?.split(";")[0];
      const cookie = [opts[family.cookie], set].filter(Boolean).join("; ");
      for (const form of formsOf(html, cookie)) {
        const key = `${form.action} ${form.fields.join(",")}`;
        if (!forms.has(key)) forms.set(key, form);
        if (form.hidden.csrf) csrfOf[family.prefix] = form.hidden.csrf;
      }
    }
  }
  // POST routes no page showed a form for: posted with the family's CSRF token alone.
  for (const family of FAMILIES) {
    for (const route of routes) {
      if (route.method !== "POST" || !route.path.startsWith(`${family.prefix}/`)) continue;
      if (route.path.includes("/api/auth/app/")) continue; // the launch has its own fuzzer
      const action = pathFor(route.path, opts.replace);
      if ([...forms.values()].some((f) => f.action === action)) continue;
      const csrf = csrfOf[family.prefix];
      forms.set(action, {
        action,
        fields: csrf ? ["csrf"] : [],
        hidden: csrf ? { csrf } : {},
        cookie: opts[family.cookie],
      });
    }
  }
  return [...forms.values()];
}
