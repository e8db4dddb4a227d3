/** Login CSRF: a sign-in form posted from another site is refused on the portal and the admin. */
import assert from "node:assert/strict";
import { backends } from "../../helpers/db.ts";
import { startTestService, type TestService } from "../../helpers/service.ts";
import { sharedFixture } from "../../helpers/shared.ts";
import { postSignIn } from "../../helpers/sign_in.ts";

const opts = { sanitizeOps: false, sanitizeResources: false };
const ADMIN = { email: "root@example.com", password: "root-password-0123456789" };

for (const backend of backends) {
  const service = sharedFixture(
    () => startTestService(backend, { ADMIN_EMAIL: ADMIN.email, ADMIN_PASSWORD: ADMIN.password }),
    (svc: TestService) => svc.close(),
  );

  for (const path of ["/admin/login", "/portal/login"]) {
    Deno.test(
      `login CSRF: ${path} refuses another site's form [${backend.name}]`,
      opts,
      async () => {
        const svc = await service();
        const post = async (headers: Record<string, string>) => {
          const res = await postSignIn(svc, path, ADMIN, headers);
          const body = await res.text();
          return { status: res.status, cookie: res.headers.get("Set-Cookie"), body };
        };
        for (
          const headers of <Record<string, string>[]> [
            { Origin: "https://evil.example", "Sec-Fetch-Site": "cross-site" },
            { "Sec-Fetch-Site": "cross-site" },
            { Origin: "https://evil.example" },
            { Origin: "null" },
            { "Sec-Fetch-Site": "same-site", Origin: "http://sub.portal.test" },
          ]
        ) {
          const refused = await post(headers);
          assert.equal(refused.status, 403, JSON.stringify(headers));
          assert.doesNotMatch(refused.cookie ?? "", /_login=/, "no login");
          assert.match(refused.body, /sent from another site/);
          assert.match(refused.body, /<form/, "the sign-in form again");
        }
        // The page's own form (a browser on the portal's origin), and a client that is no browser.
        for (
          const headers of <Record<string, string>[]> [
            { Origin: "http://portal.test", "Sec-Fetch-Site": "same-origin" },
            { "Sec-Fetch-Site": "same-origin" },
            { Origin: "http://portal.test" },
            {},
          ]
        ) {
          const ok = await post(headers);
          // The admin signs in (303); the portal refuses an administrator's credentials (401), past
          // the cross-site check either way.
          assert.ok([303, 401].includes(ok.status), `${JSON.stringify(headers)}: ${ok.status}`);
          assert.doesNotMatch(ok.body, /sent from another site/);
        }
      },
    );
  }

  Deno.test(
    `login CSRF: a sign-in without the form's token is refused [${backend.name}]`,
    opts,
    async () => {
      const svc = await service();
      for (const path of ["/admin/login", "/portal/login"]) {
        const page = await svc.request(path);
        const html = await page.text();
        assert.match(html, /name="signin_csrf" value="[A-Za-z0-9_-]{32}"/);
        const cookie = page.headers.get("Set-Cookie")!;
        assert.match(cookie, /signin_csrf=[^;]+; Max-Age=3600; Path=\/(admin|portal); HttpOnly/);
        const bare = await svc.request(path, { method: "POST", body: new URLSearchParams(ADMIN) });
        assert.equal(bare.status, 403, `${path}: no cookie, no token`);
        assert.equal(bare.headers.get("Set-Cookie")?.includes("_login="), false);
        assert.match(await bare.text(), /expired/);
        const token = html.match(/name="signin_csrf" value="([^"]+)"/)![1];
        // Another token: its first character changed (to one it is not: 1 in 64 starts with x).
        const other = token.replace(/^./, (c) => c === "x" ? "y" : "x");
        const wrong = await svc.request(path, {
          method: "POST",
          headers: { Cookie: cookie.split(";")[0] },
          body: new URLSearchParams({ ...ADMIN, signin_csrf: other }),
        });
        assert.equal(wrong.status, 403, `${path}: another token`);
        await wrong.body?.cancel();
      }
    },
  );
}
