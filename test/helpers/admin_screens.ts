/**
 * The admin screens as a browser uses them, through app.request(): sign in (the login cookie and
 * the CSRF token of its pages), then GET pages and POST forms as that administrator.
 */
import assert from "node:assert/strict";
import type { TestService } from "./service.ts";
import { postSignIn } from "./sign_in.ts";

/** A signed-in administrator: the cookie to send and the session's CSRF token. */
export interface Admin {
  cookie: string;
  csrf: string;
}

/** Signs in on /admin/login and reads the CSRF token from a page. */
export async function signInAdmin(
  svc: TestService,
  credentials: { email: string; password: string },
): Promise<Admin> {
  const res = await postSignIn(svc, "/admin/login", { ...credentials, next: "/admin/apps" });
  assert.equal(res.status, 303);
  await res.body?.cancel();
  const cookie = res.headers.get("Set-Cookie")!.split(";")[0];
  const page = await (await svc.request("/admin/apps", { headers: { Cookie: cookie } })).text();
  const csrf = page.match(/<meta name="csrf-token" content="([^"]+)"/)?.[1];
  assert.ok(csrf, "the page carries the CSRF token");
  return { cookie, csrf };
}

/** GET a screen as `admin`. */
export async function getAs(svc: TestService, admin: Admin, path: string): Promise<Response> {
  return await svc.request(path, { headers: { Cookie: admin.cookie } });
}

/** POST a form as `admin`, with the CSRF token unless `csrf` says otherwise (null: none). */
export async function postAs(
  svc: TestService,
  admin: Admin,
  path: string,
  fields: Record<string, string | string[]>,
  csrf: string | null = admin.csrf,
): Promise<Response> {
  const body = new URLSearchParams();
  if (csrf !== null) body.append("csrf", csrf);
  for (const [name, value] of Object.entries(fields)) {
    for (const v of Array.isArray(value) ? value : [value]) body.append(name, v);
  }
  return await svc.request(path, { method: "POST", headers: { Cookie: admin.cookie }, body });
}
