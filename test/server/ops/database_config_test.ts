/** The database settings of server/config.ts as connect() receives them. */
import assert from "node:assert/strict";
import { ConfigError, databaseOptions, loadConfig } from "../../../server/config.ts";
import { connect } from "../../../db/mod.ts";
import { TEST_DATABASE_URL } from "../../helpers/db.ts";

Deno.test("database config: the documented defaults reach connect()", () => {
  const options = databaseOptions(loadConfig({}));
  assert.equal(options.connectTimeoutMs, 5_000);
  assert.equal(options.statementTimeoutMs, 15_000);
  assert.equal(options.acquireTimeoutMs, 5_000);
  assert.equal(options.prepare, undefined, "unset: the URL decides");
  assert.equal(options.directUrl, undefined);
  assert.equal(loadConfig({}).databaseProbeTimeoutMs, 1_000);
});

Deno.test("database config: DATABASE_PREPARE=false and the timeouts are passed on", () => {
  const options = databaseOptions(loadConfig({
    DATABASE_PREPARE: "false",
    DATABASE_CONNECT_TIMEOUT_MS: "2000",
    DATABASE_STATEMENT_TIMEOUT_MS: "0",
    DATABASE_ACQUIRE_TIMEOUT_MS: "750",
    DATABASE_DIRECT_URL: "postgres://db.internal:5432/portal",
  }));
  assert.equal(options.prepare, false);
  assert.equal(options.connectTimeoutMs, 2_000);
  assert.equal(options.statementTimeoutMs, 0);
  assert.equal(options.acquireTimeoutMs, 750);
  assert.equal(options.directUrl, "postgres://db.internal:5432/portal");
});

Deno.test("database config: invalid values name the variable", () => {
  assert.throws(() => loadConfig({ DATABASE_PREPARE: "maybe" }), (err: ConfigError) => {
    assert.match(err.message, /DATABASE_PREPARE: expected true or false/);
    return true;
  });
  assert.throws(() => loadConfig({ DATABASE_ACQUIRE_TIMEOUT_MS: "5" }), /DATABASE_ACQUIRE/);
  assert.throws(() => loadConfig({ DATABASE_DIRECT_URL: "mysql://x" }), /DATABASE_DIRECT_URL/);
});

Deno.test({
  name: "database config: prepare=false in the URL and DATABASE_PREPARE=false both turn it off",
  ignore: !TEST_DATABASE_URL,
  async fn() {
    const url = new URL(TEST_DATABASE_URL);
    url.searchParams.set("prepare", "false");
    for (
      const db of [
        await connect({ databaseUrl: url.href, max: 1 }),
        await connect({ databaseUrl: TEST_DATABASE_URL, max: 1, prepare: false }),
      ]
    ) {
      try {
        assert.equal(db.sql.options.prepare, false);
      } finally {
        await db.close();
      }
    }
    const db = await connect({ databaseUrl: TEST_DATABASE_URL, max: 1 });
    try {
      assert.equal(db.sql.options.prepare, true);
    } finally {
      await db.close();
    }
  },
});
