/**
 * The OAuth endpoints' failure limit: failed token, revocation and introspection requests (4xx,
 * client authentication above all) count together per client address and answer 429 with
 * Retry-After past TOKEN_FAILURES_PER_MINUTE; successes and 5xx answers never count.
 */
import assert from "node:assert/strict";
import { backends } from "../../helpers/db.ts";
import { ADMIN_CLIENT, startTestService, type TestService } from "../../helpers/service.ts";
import { sharedFixture } from "../../helpers/shared.ts";

const opts = { sanitizeOps: false, sanitizeResources: false };
const LIMIT = 3;
const ENDPOINTS = ["token", "revoke", "introspect"] as const;
type Endpoint = typeof ENDPOINTS[number];

let addresses = 0;
/** An address no other test uses. */
const newAddress = () => `10.66.${Math.floor(++addresses / 250)}.${addresses % 250}`;

/** A request to `endpoint` from `address` with the admin client's id and `secret`. */
async function call(svc: TestService, endpoint: Endpoint, address: string, secret: string) {
  const res = await svc.request(`/api/v1/oauth2/${endpoint}`, {
    method: "POST",
    headers: {
      "X-Forwarded-For": address,
      Authorization: `Basic ${btoa(`${ADMIN_CLIENT.id}:${secret}`)}`,
    },
    body: new URLSearchParams(
      endpoint === "token" ? { grant_type: "client_credentials" } : { token: "some-token" },
    ),
  });
  const text = await res.text();
  return {
    status: res.status,
    retryAfter: res.headers.get("Retry-After"),
    body: text ? JSON.parse(text) : null,
  };
}

for (const backend of backends) {
  const service = sharedFixture(
    () =>
      startTestService(backend, {
        TOKEN_FAILURES_PER_MINUTE: String(LIMIT),
        TRUST_PROXY: "true",
      }),
    (svc: TestService) => svc.close(),
  );

  for (const endpoint of ["revoke", "introspect"] as const) {
    Deno.test(
      `oauth limit: ${endpoint} answers 429 after ${LIMIT} bad client credentials [${backend.name}]`,
      opts,
      async () => {
        const svc = await service();
        const address = newAddress();
        const statuses: number[] = [];
        for (let i = 0; i < LIMIT; i++) {
          statuses.push((await call(svc, endpoint, address, "wrong-secret")).status);
        }
        assert.deepEqual(statuses, Array(LIMIT).fill(401), "invalid_client through Basic");
        const refused = await call(svc, endpoint, address, ADMIN_CLIENT.secret);
        assert.equal(refused.status, 429, "even the right secret waits");
        assert.match(refused.retryAfter ?? "", /^[1-9]\d*$/);
        assert.equal(refused.body.code, "too_many_failures");
        // The same answer as the token endpoint's: the address's budget is shared.
        const token = await call(svc, "token", address, ADMIN_CLIENT.secret);
        assert.equal(token.status, 429);
        assert.deepEqual(Object.keys(refused.body).sort(), Object.keys(token.body).sort());
        const { requestId: _a, ...refusedBody } = refused.body;
        const { requestId: _b, ...tokenBody } = token.body;
        assert.deepEqual(refusedBody, tokenBody, "the same answer but for the request id");
        assert.match(token.retryAfter ?? "", /^[1-9]\d*$/);
        const other = await call(svc, endpoint, newAddress(), ADMIN_CLIENT.secret);
        assert.equal(other.status, 200, "another address is not affected");
      },
    );
  }

  Deno.test(
    `oauth limit: failures at the three endpoints count together [${backend.name}]`,
    opts,
    async () => {
      const svc = await service();
      const address = newAddress();
      for (const endpoint of ENDPOINTS) {
        assert.notEqual((await call(svc, endpoint, address, "wrong-secret")).status, 429);
      }
      for (const endpoint of ENDPOINTS) {
        assert.equal((await call(svc, endpoint, address, "wrong-secret")).status, 429, endpoint);
      }
    },
  );

  Deno.test(
    `oauth limit: successful requests never use up the budget [${backend.name}]`,
    opts,
    async () => {
      const svc = await service();
      const address = newAddress();
      for (let i = 0; i < LIMIT + 2; i++) {
        for (const endpoint of ENDPOINTS) {
          assert.equal((await call(svc, endpoint, address, ADMIN_CLIENT.secret)).status, 200);
        }
      }
      for (let i = 0; i < LIMIT - 1; i++) await call(svc, "introspect", address, "wrong-secret");
      assert.equal(
        (await call(svc, "revoke", address, ADMIN_CLIENT.secret)).status,
        200,
        "one failure short of the limit",
      );
    },
  );

  Deno.test(
    `oauth limit: 5xx answers (the database failing) never count [${backend.name}]`,
    opts,
    async () => {
      // Its own service: the fault would break the shared one's other tests.
      const svc = await startTestService(backend, {
        TOKEN_FAILURES_PER_MINUTE: String(LIMIT),
        TRUST_PROXY: "true",
      });
      try {
        const address = newAddress();
        // A real fault: the table the client is looked up in is gone for a moment.
        await svc.db.sql`alter table api_clients rename to api_clients_away`;
        try {
          for (const endpoint of ENDPOINTS) {
            for (let i = 0; i < LIMIT + 1; i++) {
              const res = await call(svc, endpoint, address, "wrong-secret");
              assert.equal(res.status, 500, `${endpoint}: ${JSON.stringify(res.body)}`);
            }
          }
        } finally {
          await svc.db.sql`alter table api_clients_away rename to api_clients`;
        }
        const statuses: number[] = [];
        for (let i = 0; i < LIMIT + 1; i++) {
          statuses.push((await call(svc, ENDPOINTS[i % 3], address, "wrong-secret")).status);
        }
        assert.deepEqual(statuses, [...Array(LIMIT).fill(401), 429], "only the 4xx counted");
      } finally {
        await svc.close();
      }
    },
  );
}
