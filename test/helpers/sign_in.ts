/**
 * Password sign-in as a browser does it: GET the sign-in page (its pre-session CSRF cookie and
 * token), then POST the form with both. Answers the POST's response.
 */
import type { TestService } from "./service.ts";

/** Signs in on `/admin/login` or `{prefix}/login`; `headers` are added to the POST. */
export async function postSignIn(
  svc: Pick<TestService, "request">,
  path: string,
  fields: Record<string, string>,
  headers: Record<string, string> = {},
): Promise<Response> {
  const page = await svc.request(path);
  const html = await page.text();
  const cookie = page.headers.get("Set-Cookie")?.split(";")[0] ?? "";
  const token = html.match(/name="signin_csrf" value="([^"]+)"/)?.[1] ?? "";
  return await svc.request(path, {
    method: "POST",
    headers: { Cookie: cookie, ...headers },
    body: new URLSearchParams({ ...fields, signin_csrf: token }),
  });
}
