/**
 * The waits the sign-in and password-reset limiters ask for, as people read them: seconds under a
 * minute, minutes from a minute on, singular and plural right in each portal language, and the
 * same wait in the 429's Retry-After.
 */
import assert from "node:assert/strict";
import { retryAfterSeconds, waitText } from "../../../server/http/wait_text.ts";
import { portalLanguage, translator } from "../../../server/portal/i18n.ts";
import { hashPassword } from "../../../server/crypto/hashing.ts";
import { backends } from "../../helpers/db.ts";
import { startTestService, type TestService } from "../../helpers/service.ts";
import { postSignIn } from "../../helpers/sign_in.ts";
import { uniqueId } from "../../helpers/shared.ts";

Deno.test("waitText: seconds under a minute, minutes from one on, rounded up; no-break space", () => {
  assert.equal(waitText(1), "1\u00a0second");
  assert.equal(waitText(1000), "1\u00a0second");
  assert.equal(waitText(1001), "2\u00a0seconds");
  assert.equal(waitText(0), "1\u00a0second", "never zero: the wait has not quite passed");
  assert.equal(waitText(59_000), "59\u00a0seconds");
  assert.equal(waitText(59_001), "1\u00a0minute");
  assert.equal(waitText(60_000), "1\u00a0minute");
  assert.equal(waitText(60_001), "2\u00a0minutes");
  assert.equal(waitText(900_000), "15\u00a0minutes");
  assert.deepEqual([0, 1, 1000, 1001, 61_000].map(retryAfterSeconds), [1, 1, 1, 2, 61]);
});

Deno.test("waitText: a tag Intl refuses reads as English; Object's names are no language", () => {
  assert.equal(waitText(30_000, "constructor"), "30\u00a0seconds");
  assert.equal(waitText(30_000, "x-?"), "30\u00a0seconds");
  for (const name of ["constructor", "toString", "__proto__", "hasOwnProperty"]) {
    assert.equal(portalLanguage(name), "en", name);
  }
});

Deno.test("waitText: each portal language's own words and plurals", () => {
  const cases: [string, number, string][] = [
    ["fr", 1000, "1\u00a0seconde"],
    ["fr", 30_000, "30\u00a0secondes"],
    ["fr", 120_000, "2\u00a0minutes"],
    ["es", 1000, "1\u00a0segundo"],
    ["es", 30_000, "30\u00a0segundos"],
    ["es", 60_000, "1\u00a0minuto"],
    ["de", 1000, "1\u00a0Sekunde"],
    ["de", 30_000, "30\u00a0Sekunden"],
    ["de", 900_000, "15\u00a0Minuten"],
  ];
  for (const [language, ms, words] of cases) assert.equal(waitText(ms, language), words);
  assert.equal(
    translator("de")("tooManyAttempts", { wait: waitText(1000, "de") }),
    "Zu viele Fehlversuche. Versuchen Sie es in 1\u00a0Sekunde erneut.",
  );
});

const opts = { sanitizeOps: false, sanitizeResources: false };

for (const backend of backends) {
  /** Wrong passwords for a new account at `path` until the limiter answers 429 (or 10 tries). */
  const untilLimited = async (
    svc: TestService,
    path: string,
    role: "agent" | "admin",
    headers: Record<string, string> = {},
  ) => {
    const email = `${uniqueId("wait")}@example.com`;
    await svc.db.sql`insert into users (role, email, first_name, last_name, password_hash)
      values (${role}, ${email}, 'W', 'T', ${await hashPassword("right-password-01")})`;
    const statuses: number[] = [];
    for (let i = 0; i < 10; i++) {
      const res = await postSignIn(svc, path, { email, password: "wrong" }, headers);
      statuses.push(res.status);
      const html = await res.text();
      if (res.status === 429) return { res, html, statuses };
    }
    assert.fail(`no 429 in 10 wrong passwords: ${statuses.join(" ")}`);
  };

  Deno.test(
    `sign-in: the refusal says the wait in seconds, as Retry-After does [${backend.name}]`,
    opts,
    async () => {
      const svc = await startTestService(backend);
      try {
        for (
          const [path, role, headers, said] of [
            [
              "/portal/login",
              "agent",
              {},
              (n: number) =>
                `Too many failed attempts. Try again in ${n}\u00a0second${n === 1 ? "" : "s"}.`,
            ],
            // A language named like one of Object's properties is English, not a 500.
            [
              "/portal/login",
              "agent",
              { "Accept-Language": "constructor" },
              (n: number) =>
                `Too many failed attempts. Try again in ${n}\u00a0second${n === 1 ? "" : "s"}.`,
            ],
            [
              "/portal/login",
              "agent",
              { "Accept-Language": "fr" },
              (n: number) =>
                `Trop d&#39;échecs. Réessayez dans ${n}\u00a0seconde${n === 1 ? "" : "s"}.`,
            ],
            [
              "/admin/login",
              "admin",
              {},
              (n: number) =>
                `Too many failed attempts. Try again in ${n}\u00a0second${n === 1 ? "" : "s"}.`,
            ],
          ] as const
        ) {
          const { res, html, statuses } = await untilLimited(svc, path, role, headers);
          assert.deepEqual(statuses.slice(0, 5), [401, 401, 401, 401, 401], path);
          const seconds = Number(res.headers.get("Retry-After"));
          assert.ok(Number.isInteger(seconds) && seconds >= 1, `Retry-After ${seconds}`);
          assert.ok(html.includes(said(seconds)), `${path}: ${said(seconds)} not in the page`);
          assert.doesNotMatch(html, /minutes?\b|Minuten?/, "a wait under a minute in minutes");
        }
      } finally {
        await svc.close();
      }
    },
  );
}
