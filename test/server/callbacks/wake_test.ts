/**
 * After-commit effects (server/transaction.ts): every writer wakes this service's delivery worker
 * once its write commits, and every app change empties the launch's app cache, with no call site
 * doing it by hand. The worker here polls only once a minute (CALLBACK_POLL_MS 60000), so an event
 * delivered within seconds was delivered because its writer woke the worker.
 */
import assert from "node:assert/strict";
import { backends } from "../../helpers/db.ts";
import { callsDuring, uniqueId } from "../../helpers/shared.ts";
import { signLaunch } from "../../helpers/launch.ts";
import { type Json, launchPayload } from "../../helpers/payload.ts";
import { CALLBACK_ENV, callbackFixtures, startCrmServer, withCrm } from "./fixture.ts";
import { startTestService } from "../../helpers/service.ts";
import { inTransaction } from "../../../server/transaction.ts";
import { emitCallbackEvents } from "../../../server/callbacks/events.ts";
import { changeSession } from "../../../server/sessions/changes.ts";
import { completePath } from "../../../server/sessions/path_runs.ts";
import { requestRemoteConnection } from "../../../server/portal/remote.ts";
import { redeliver } from "../../../server/callbacks/delivery_log.ts";
import type { Deps } from "../../../server/deps.ts";

const opts = { sanitizeOps: false, sanitizeResources: false };
const fixtures = callbackFixtures(backends, { CALLBACK_POLL_MS: "60000" });
/** Well under the poll: only a wake-up delivers this fast. */
const SOON_MS = 8_000;

/** Counts the wake-ups of the worker of `deps` while `work` runs. */
const wakesDuring = (deps: Deps, work: () => Promise<unknown>) =>
  callsDuring(deps.deliveries, "wake", work);

for (const backend of backends) {
  const fixture = fixtures.get(backend)!;
  const name = (s: string) => `wake-ups: ${s} [${backend.name}]`;

  Deno.test(
    name("a launch wakes the worker; a refused one does not"),
    opts,
    withCrm(fixture, async (f, crm) => {
      const app = await f.app(crm);
      const wakes = await wakesDuring(
        f.svc.deps,
        () => f.launch(app, { referenceId: uniqueId("R") }),
      );
      assert.equal(wakes, 1);
      await crm.waitFor(1, SOON_MS);
      const refused = await wakesDuring(f.svc.deps, async () => {
        const res = await f.svc.request(`/portal/api/auth/app/${app.appName}`, {
          method: "POST",
          headers: { Accept: "application/json" },
          body: new URLSearchParams({
            signed_request: await signLaunch(
              launchPayload({ referenceId: uniqueId("R"), customFields: { nosuch: "x" } }),
              app.apiKey!,
            ),
          }),
        });
        assert.equal(res.status, 400);
        await res.body?.cancel();
      });
      assert.equal(refused, 0, "nothing committed, nothing to wake for");
    }),
  );

  Deno.test(
    name("REST and portal changes, a path run and a remote request wake the worker"),
    opts,
    withCrm(fixture, async (f, crm) => {
      const deps = f.svc.deps;
      const app = await f.app(crm);
      const launched = await f.launch(app, { referenceId: uniqueId("R") });
      await crm.waitFor(1, SOON_MS);
      const sessionId = launched.sessionId as number;
      const agentId = launched.agentId as number;
      const steps: [string, () => Promise<unknown>][] = [
        ["REST change", async () => {
          const res = await f.svc.api("PATCH", `/api/v1/sessions/${sessionId}`, f.admin, {
            status: "closed",
          });
          assert.equal(res.status, 200);
          await res.body?.cancel();
        }],
        [
          "portal change",
          () => changeSession(deps, sessionId, { status: "open" }, { agentId, via: "portal" }),
        ],
        ["path run", async () => {
          const category =
            await (await f.svc.api("POST", "/api/v1/admin/path-categories", f.admin, {
              name: uniqueId("Cat"),
            })).json();
          const path = await (await f.svc.api("POST", "/api/v1/admin/paths", f.admin, {
            title: "Wake",
            categoryUid: category.uid,
            published: true,
          })).json();
          await completePath(deps, { sessionId, pathUid: path.uid, pathTitle: "Wake", agentId });
        }],
        ["remote request", () =>
          requestRemoteConnection(deps, {
            sessionId,
            agentId,
            launchId: launched.launchId as number,
            again: true,
          })],
      ];
      let expected = 1;
      for (const [what, step] of steps) {
        assert.equal(await wakesDuring(deps, step), 1, what);
        // A remote request writes two events (remote.requested, remote.invited): one wake.
        expected += what === "remote request" ? 2 : 1;
        await crm.waitFor(expected, SOON_MS);
      }
      const types = crm.received.map((r) => (r.json as Json).type);
      assert.deepEqual(types, [
        "session.created",
        "session.closed",
        "session.reopened",
        "path.completed",
        "remote.requested",
        "remote.invited",
      ]);
    }),
  );

  Deno.test(
    name("a redelivery wakes the worker"),
    opts,
    withCrm(fixture, async (f, crm) => {
      const app = await f.app(crm);
      const launched = await f.launch(app, { referenceId: uniqueId("R") });
      const delivered = await f.settled("session.created", launched.sessionId as number);
      await crm.waitFor(1, SOON_MS);
      const wakes = await wakesDuring(
        f.svc.deps,
        () => redeliver(f.svc.deps, Number(delivered.id), undefined),
      );
      assert.equal(wakes, 1);
      await crm.waitFor(2, SOON_MS);
    }),
  );

  Deno.test(
    name("an app change empties the app cache at its commit"),
    opts,
    withCrm(fixture, async (f, crm) => {
      const app = await f.app(crm);
      await f.launch(app); // the app is now cached (APP_CACHE_MS: 5 s)
      const patched = await f.svc.api("PATCH", `/api/v1/admin/apps/${app.appName}`, f.admin, {
        enabled: false,
      });
      assert.equal(patched.status, 200);
      await patched.body?.cancel();
      const res = await f.svc.request(`/portal/api/auth/app/${app.appName}`, {
        method: "POST",
        headers: { Accept: "application/json" },
        body: new URLSearchParams({
          signed_request: await signLaunch(launchPayload(), app.apiKey!),
        }),
      });
      const body = await res.json();
      // A disabled app is answered as an unknown one; seen at once, not once the cache expires.
      assert.equal(body.code, "app_not_found", JSON.stringify(body));
    }),
  );

  Deno.test(
    name("a rolled-back write runs none of its effects"),
    opts,
    withCrm(fixture, async (f, crm) => {
      const app = await f.app(crm);
      const launched = await f.launch(app, { referenceId: uniqueId("R") });
      await crm.waitFor(1, SOON_MS);
      const sessionId = launched.sessionId as number;
      const wakes = await wakesDuring(f.svc.deps, async () => {
        await assert.rejects(
          inTransaction(f.svc.deps, async (w) => {
            assert.equal(await emitCallbackEvents(w, sessionId, [{ type: "session.updated" }]), 1);
            throw new Error("the write fails after emitting");
          }),
          /fails after emitting/,
        );
      });
      assert.equal(wakes, 0);
      const [row] = await f.svc.db.sql`select count(*)::int as n from callback_events
        where session_id = ${sessionId}`;
      assert.equal(row.n, 1, "only the launch's event: the other was rolled back");
    }),
  );

  Deno.test(
    name("two services in one process share no worker and no app cache"),
    opts,
    async () => {
      const f = await fixture();
      const other = await startTestService(backend, CALLBACK_ENV);
      const crm = startCrmServer();
      try {
        assert.notEqual(other.deps.apps, f.svc.deps.apps);
        const app = await f.app(crm);
        const otherWakes = await wakesDuring(other.deps, async () => {
          const ownWakes = await wakesDuring(
            f.svc.deps,
            () => f.launch(app, { referenceId: uniqueId("R") }),
          );
          assert.equal(ownWakes, 1);
        });
        assert.equal(otherWakes, 0, "the other service's worker is not woken");
      } finally {
        await crm.close();
        await other.close();
      }
    },
  );
}
