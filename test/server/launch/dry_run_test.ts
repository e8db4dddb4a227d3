/**
 * The dry run answers what the launch does: the same cases through /validate and then through the
 * launch itself (the dry run writes nothing, so both see the same data) must agree.
 */
import assert from "node:assert/strict";
import { backends } from "../../helpers/db.ts";
import { type Json, launchPayload } from "../../helpers/payload.ts";
import { uniqueId } from "../../helpers/shared.ts";
import { delta, freshPayload, type LaunchFixture, launchFixtures } from "./fixture.ts";

const fixtures = launchFixtures(backends);

/** What a request came to, in the dry run's terms. */
type Outcome =
  | { status: number; code: string }
  | {
    status: 200;
    agent: string;
    customer: string;
    session: string;
    assign: boolean;
    /** Codes of the warnings, sorted (omitted when there are none). */
    warnings?: string[];
  };

/** The sorted warning codes of a response, or nothing when it has none. */
function warningCodes(body: Json): { warnings?: string[] } {
  const codes = (body.warnings as { code: string }[]).map((w) => w.code).sort();
  return codes.length ? { warnings: codes } : {};
}

interface Case {
  name: string;
  /** Prepares the data and returns the payload both requests send. */
  setup(f: LaunchFixture): Promise<Json>;
  expected: Outcome;
}

const params = (p: Json) => p.context.environment.parameters;

const cases: Case[] = [
  {
    name: "new agent and new customer",
    setup: () => Promise.resolve(freshPayload()),
    expected: { status: 200, agent: "create", customer: "create", session: "create", assign: true },
  },
  {
    name: "existing agent (external id) and customer (e-mail)",
    async setup(f) {
      const p = freshPayload();
      await f.launchJson(p);
      return p;
    },
    expected: { status: 200, agent: "update", customer: "update", session: "create", assign: true },
  },
  {
    name: "existing agent found by e-mail, customer by contactId",
    async setup(f) {
      const p = freshPayload();
      await f.launchJson(p);
      return launchPayload(
        { ...params(p), contactEmail: `${uniqueId("other")}@example.org` },
        { ...p.context.user, id: uniqueId("renamed") },
      );
    },
    expected: { status: 200, agent: "update", customer: "update", session: "create", assign: true },
  },
  {
    name: "customer conflict: e-mail of one customer, contactId of another: resolved, warned",
    async setup(f) {
      const a = freshPayload();
      const b = freshPayload();
      await f.launchJson(a);
      await f.launchJson(b);
      return freshPayload({ contactEmail: params(a).contactEmail, contactId: params(b).contactId });
    },
    expected: {
      status: 200,
      agent: "create",
      customer: "update",
      session: "create",
      assign: true,
      warnings: ["customer_external_id_differs", "customer_external_id_in_use"],
    },
  },
  {
    name: "agent conflict: external id of one agent, e-mail of another: resolved, warned",
    async setup(f) {
      const a = freshPayload();
      const b = freshPayload();
      await f.launchJson(a);
      await f.launchJson(b);
      return freshPayload({}, { id: a.context.user.id, email: b.context.user.email });
    },
    expected: {
      status: 200,
      agent: "update",
      customer: "create",
      session: "create",
      assign: true,
      warnings: ["agent_email_in_use"],
    },
  },
  {
    name: "an administrator's identity",
    async setup(f) {
      const id = uniqueId("boss");
      await f.svc.db.sql`insert into users (role, external_id, email, first_name, last_name)
        values ('admin', ${id}, ${`${id}@example.com`}, 'Boss', 'Person')`;
      return freshPayload({}, { email: `${id}@example.com` });
    },
    expected: { status: 403, code: "agent_is_admin" },
  },
  {
    name: "an unknown session",
    setup: () => Promise.resolve(freshPayload({ sessionId: 987654321 })),
    expected: { status: 404, code: "session_not_found" },
  },
  {
    name: "an open session with assign, owned by another agent",
    async setup(f) {
      const owner = await f.launchJson(freshPayload());
      return freshPayload({ sessionId: owner.body.sessionId, assign: true });
    },
    expected: { status: 200, agent: "create", customer: "create", session: "update", assign: true },
  },
  {
    name: "an open session without assign, owned by another agent",
    async setup(f) {
      const owner = await f.launchJson(freshPayload());
      return freshPayload({ sessionId: owner.body.sessionId });
    },
    expected: {
      status: 200,
      agent: "create",
      customer: "create",
      session: "update",
      assign: false,
    },
  },
  {
    name: "a closed session with assign keeps its assignee",
    async setup(f) {
      const owner = await f.launchJson(freshPayload());
      await f.svc.db.sql`update sessions set status = 'closed' where id = ${owner.body.sessionId}`;
      return freshPayload({ sessionId: owner.body.sessionId, assign: 1 });
    },
    expected: {
      status: 200,
      agent: "create",
      customer: "create",
      session: "update",
      assign: false,
    },
  },
  {
    name: "a custom field that is not configured",
    setup: () => Promise.resolve(freshPayload({ customFields: { nope: "x" } })),
    expected: { status: 400, code: "unknown_custom_fields" },
  },
];

async function dryRunOutcome(f: LaunchFixture, p: Json): Promise<Outcome> {
  const { status, body } = await f.dryRun(p);
  return status === 200
    ? { status: 200, ...body.plan, ...warningCodes(body) }
    : { status, code: body.code };
}

/** Runs the launch and reads back what it did, in the dry run's terms. */
async function launchOutcome(f: LaunchFixture, p: Json): Promise<Outcome> {
  const sessionId = params(p).sessionId ?? null;
  const before = await f.counts();
  const { status, body } = await f.launchJson(p);
  if (status !== 200) return { status, code: body.code };
  const made = delta(before, await f.counts());
  const [s] = await f.svc.db.sql`select assignee_id from sessions where id = ${body.sessionId}`;
  return {
    status: 200,
    agent: made.agents ? "create" : "update",
    customer: made.customers ? "create" : "update",
    session: sessionId === null ? "create" : "update",
    assign: Number(s.assigneeId) === body.agentId,
    ...warningCodes(body),
  };
}

for (const backend of backends) {
  for (const c of cases) {
    Deno.test({
      name: `dry run answers what the launch does: ${c.name} [${backend.name}]`,
      sanitizeOps: false,
      sanitizeResources: false,
      async fn() {
        const f = await fixtures.get(backend)!();
        const p = await c.setup(f);
        const before = await f.counts();
        const planned = await dryRunOutcome(f, p);
        assert.deepEqual(delta(before, await f.counts()), {}, "the dry run wrote nothing");
        assert.deepEqual(planned, c.expected, "dry run");
        assert.deepEqual(await launchOutcome(f, p), c.expected, "launch");
      },
    });
  }
}

for (const backend of backends) {
  Deno.test({
    name: `dry runs consume no ids: numbers stay gap-free across them [${backend.name}]`,
    sanitizeOps: false,
    sanitizeResources: false,
    async fn() {
      const f = await fixtures.get(backend)!();
      // Everything a launch can insert: a new agent, customer, session, device, team, launch.
      const full = () => {
        const team = { teamId: uniqueId("t"), teamName: "Team" };
        return freshPayload({ deviceComputer: { serial: uniqueId("sn") } }, { teams: [team] });
      };
      const ids = async (launched: Json) => {
        const [r] = await f.svc.db.sql`select s.customer_id, s.assignee_id,
            (select max(id) from devices where session_id = s.id) as device,
            (select max(id) from launches where session_id = s.id) as launch,
            (select max(team_id) from team_members where user_id = s.assignee_id) as team
          from sessions s where s.id = ${launched.body.sessionId}`;
        return [launched.body.sessionId, r.customerId, r.assigneeId, r.device, r.launch, r.team]
          .map(Number);
      };
      const first = await f.launchJson(full());
      assert.equal(first.status, 200);
      for (let i = 0; i < 3; i++) {
        const { status, body } = await f.dryRun(full());
        assert.equal(status, 200);
        assert.deepEqual(body.plan, {
          agent: "create",
          customer: "create",
          session: "create",
          assign: true,
        });
      }
      const second = await f.launchJson(full());
      assert.equal(second.status, 200);
      const [a, b] = [await ids(first), await ids(second)];
      assert.deepEqual(b, a.map((id) => id + 1), "session, customer, agent, device, launch, team");
      const [neg] = await f.svc.db.sql`select
        (select count(*) from users where id < 0) + (select count(*) from sessions where id < 0)
        as n`;
      assert.equal(Number(neg.n), 0, "no dry run row committed");
    },
  });
}
