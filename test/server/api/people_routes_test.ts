/** The people factory (customers, agents) on fakes: a token that validates, in-memory rows. */
import assert from "node:assert/strict";
import { z } from "@hono/zod-openapi";
import type { AppScope, PeopleFilter } from "../../../db/queries/people.ts";
import type { Deps } from "../../../server/deps.ts";
import { handleError } from "../../../server/http/errors.ts";
import type { TokenInfo } from "../../../server/oauth/auth_service.ts";
import {
  agentRoutes,
  customerRoutes,
  type PeopleResource,
  peopleRoutes,
} from "../../../server/api/people_routes.ts";

const token: TokenInfo = {
  clientId: "c",
  clientDbId: 1,
  appId: 3,
  scopes: ["sessions:read"],
  clientScopes: ["sessions:read"],
  expiresAt: new Date(Date.now() + 60_000),
};

/** Deps whose every token is `token` and whose database answers every query with no rows. */
const deps = {
  auth: { validate: () => Promise.resolve(token) },
  sql: () => Promise.resolve([]),
} as unknown as Deps;

type Widget = { id: number; label: string };

/** A resource of widgets 1..5 that records how it was asked. */
function widgets(): PeopleResource<Widget> & { asked: unknown[] } {
  const rows = [5, 4, 3, 2, 1].map((id) => ({ id, label: `w${id}` }));
  const asked: unknown[] = [];
  return {
    asked,
    one: "widget",
    many: "widgets",
    title: "Widget",
    tag: "Widgets",
    readSummary: "Read a widget",
    schema: z.object({ id: z.number(), label: z.string() }),
    byId(_sql, id: number, scope: AppScope) {
      asked.push({ id, scope });
      return Promise.resolve(rows.find((r) => r.id === id) ?? null);
    },
    list(_sql, filter: PeopleFilter, limit: number) {
      asked.push({ filter, limit });
      return Promise.resolve(rows.filter((r) => r.id < (filter.beforeId ?? 99)).slice(0, limit));
    },
    view: (row: Widget) => ({ id: row.id, label: row.label.toUpperCase() }),
  };
}

/** GET `path` from a sub-app with a bearer token, errors answered by the service's handler. */
async function get(
  routes: ReturnType<typeof peopleRoutes>,
  path: string,
): Promise<Response> {
  routes.onError(handleError);
  return await routes.request(`http://portal.test${path}`, {
    headers: { Authorization: "Bearer t0ken" },
  });
}

Deno.test("peopleRoutes reads one in the caller's scope, viewed, with an ETag", async () => {
  const resource = widgets();
  const res = await get(peopleRoutes(deps, resource), "/4");
  assert.equal(res.status, 200);
  assert.ok(res.headers.get("ETag"));
  assert.deepEqual(await res.json(), { id: 4, label: "W4" });
  assert.deepEqual(resource.asked, [{ id: 4, scope: { appId: 3 } }]);
});

Deno.test("peopleRoutes answers a missing one with 404 named after the resource", async () => {
  const res = await get(peopleRoutes(deps, widgets()), "/9");
  assert.equal(res.status, 404);
  assert.deepEqual(await res.json(), { code: "widget_not_found", message: "Widget 9 not found" });
});

Deno.test("peopleRoutes lists a page, newest first, with the cursor of the next one", async () => {
  const resource = widgets();
  const routes = peopleRoutes(deps, resource);
  const first = await (await get(routes, "/?limit=2&email=a@example.org")).json();
  assert.deepEqual(first.items, [{ id: 5, label: "W5" }, { id: 4, label: "W4" }]);
  const second = await (await get(routes, `/?limit=2&cursor=${first.nextCursor}`)).json();
  assert.deepEqual(second.items.map((w: Widget) => w.id), [3, 2]);
  assert.deepEqual(resource.asked, [
    {
      filter: {
        email: "a@example.org",
        externalId: undefined,
        beforeId: undefined,
        scope: { appId: 3 },
        organizationId: undefined,
      },
      limit: 3,
    },
    {
      filter: {
        email: undefined,
        externalId: undefined,
        beforeId: 4,
        scope: { appId: 3 },
        organizationId: undefined,
      },
      limit: 3,
    },
  ]);
});

Deno.test("peopleRoutes documents its operations under the resource's tag", () => {
  const doc = peopleRoutes(deps, widgets()).getOpenAPI31Document({
    openapi: "3.1.0",
    info: { title: "t", version: "1" },
  });
  assert.deepEqual(Object.keys(doc.paths ?? {}), ["/{id}", "/"]);
  assert.equal(doc.paths?.["/{id}"].get?.summary, "Read a widget");
  assert.deepEqual(doc.paths?.["/"].get?.tags, ["Widgets"]);
  assert.equal(
    doc.paths?.["/"].get?.summary,
    "Find widgets by e-mail or external id, newest first",
  );
  assert.ok(doc.components?.schemas?.WidgetPage, "the page schema is named after the resource");
});

Deno.test("customer and agent routes answer a missing one with their own 404", async () => {
  for (
    const [routes, body] of [
      [customerRoutes(deps), { code: "customer_not_found", message: "Customer 7 not found" }],
      [agentRoutes(deps), { code: "agent_not_found", message: "Agent 7 not found" }],
    ] as const
  ) {
    const res = await get(routes, "/7");
    assert.equal(res.status, 404);
    assert.deepEqual(await res.json(), body);
  }
});
