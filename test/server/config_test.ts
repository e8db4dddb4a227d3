import assert from "node:assert/strict";
import { ConfigError, loadConfig } from "../../server/config.ts";

function problems(env: Record<string, string>): string[] {
  try {
    loadConfig(env);
  } catch (err) {
    if (err instanceof ConfigError) return err.problems;
    throw err;
  }
  throw new Error("expected a ConfigError");
}

Deno.test("config defaults", () => {
  const c = loadConfig({});
  assert.equal(c.port, 8000);
  assert.equal(c.host, "127.0.0.1");
  assert.equal(c.publicUrl, "http://localhost:8000");
  assert.equal(c.portalPrefix, "/portal");
  assert.equal(c.databaseUrl, undefined);
  assert.equal(c.databasePoolSize, 10);
  assert.equal(loadConfig({ DATABASE_POOL_SIZE: "4" }).databasePoolSize, 4);
  assert.throws(() => loadConfig({ DATABASE_POOL_SIZE: "0" }), /DATABASE_POOL_SIZE/);
  assert.equal(c.dataDir, "./.data");
  assert.equal(c.tokenTtlSeconds, 3600);
  assert.equal(c.tokenCacheSeconds, 30);
  assert.equal(c.trustProxy, false);
  assert.equal(c.logLevel, "info");
});

Deno.test("config PUBLIC_URL follows PORT and loses a trailing slash", () => {
  assert.equal(loadConfig({ PORT: "9000" }).publicUrl, "http://localhost:9000");
  assert.equal(
    loadConfig({ PUBLIC_URL: "https://portal.example.com/" }).publicUrl,
    "https://portal.example.com",
  );
});

Deno.test("config names each invalid variable and what it expects", () => {
  const found = problems({
    PORT: "eighty",
    PUBLIC_URL: "https://example.com/app",
    PORTAL_PREFIX: "portal/",
    TOKEN_TTL_SECONDS: "5",
    TRUST_PROXY: "maybe",
    LOG_LEVEL: "loud",
    DATABASE_URL: "mysql://x",
  });
  const byVar = Object.fromEntries(found.map((p) => [p.split(":")[0], p]));
  assert.match(byVar.PORT, /whole number from 0 to 65535/);
  assert.match(byVar.PUBLIC_URL, /absolute http\(s\) origin/);
  assert.match(byVar.PORTAL_PREFIX, /leading slash/);
  assert.match(byVar.TOKEN_TTL_SECONDS, /from 60 to 86400/);
  assert.match(byVar.TRUST_PROXY, /true or false/);
  assert.match(byVar.LOG_LEVEL, /debug, info, warn, error, silent/);
  assert.match(byVar.DATABASE_URL, /postgres:\/\//);
});

Deno.test("config requires SECRET_KEY with DATABASE_URL and pairs of bootstrap variables", () => {
  assert.match(problems({ DATABASE_URL: "postgres://x/y" })[0], /^SECRET_KEY: required/);
  assert.match(problems({ SECRET_KEY: "short" })[0], /^SECRET_KEY: expected at least 32/);
  assert.match(problems({ ADMIN_EMAIL: "a@b.co" })[0], /ADMIN_EMAIL\/ADMIN_PASSWORD/);
  assert.match(
    problems({ ADMIN_EMAIL: "not-an-email", ADMIN_PASSWORD: "x".repeat(12) })[0],
    /^ADMIN_EMAIL/,
  );
  assert.match(
    problems({ BOOTSTRAP_CLIENT_ID: "c" })[0],
    /BOOTSTRAP_CLIENT_ID\/BOOTSTRAP_CLIENT_SECRET/,
  );
  assert.match(
    problems({ BOOTSTRAP_CLIENT_ID: "c", BOOTSTRAP_CLIENT_SECRET: "short" })[0],
    /^BOOTSTRAP_CLIENT_SECRET: expected at least 32/,
  );
});

Deno.test("config accepts boolean spellings for TRUST_PROXY", () => {
  assert.equal(loadConfig({ TRUST_PROXY: "1" }).trustProxy, true);
  assert.equal(loadConfig({ TRUST_PROXY: "Yes" }).trustProxy, true);
  assert.equal(loadConfig({ TRUST_PROXY: "off" }).trustProxy, false);
});

Deno.test("config: PASSWORD_RESET_TTL_MINUTES takes 1 to 1440 (QA can test expiry in a minute)", () => {
  assert.equal(loadConfig({ PASSWORD_RESET_TTL_MINUTES: "1" }).passwordResetTtlMinutes, 1);
  assert.equal(loadConfig({ PASSWORD_RESET_TTL_MINUTES: "1440" }).passwordResetTtlMinutes, 1440);
  assert.match(problems({ PASSWORD_RESET_TTL_MINUTES: "0" }).join(), /PASSWORD_RESET_TTL_MINUTES/);
  assert.match(
    problems({ PASSWORD_RESET_TTL_MINUTES: "1441" }).join(),
    /PASSWORD_RESET_TTL_MINUTES/,
  );
});

Deno.test("config: a proxy in the environment sends callbacks of its scheme through fetch", () => {
  const proxy = "http://proxy.internal:3128";
  assert.deepEqual(loadConfig({}).callbackProxied, []);
  assert.deepEqual(loadConfig({ HTTPS_PROXY: proxy }).callbackProxied, ["https:"]);
  assert.deepEqual(loadConfig({ https_proxy: proxy }).callbackProxied, ["https:"]);
  assert.deepEqual(loadConfig({ HTTP_PROXY: proxy }).callbackProxied, ["http:"]);
  assert.deepEqual(loadConfig({ http_proxy: proxy }).callbackProxied, ["http:"]);
  assert.deepEqual(loadConfig({ ALL_PROXY: proxy }).callbackProxied, ["http:", "https:"]);
  assert.deepEqual(loadConfig({ all_proxy: proxy }).callbackProxied, ["http:", "https:"]);
  assert.deepEqual(loadConfig({ HTTPS_PROXY: "" }).callbackProxied, []);
});
