/**
 * The contract test's requests: for every operation of /api/v1 a valid request (made fresh each
 * time, since a good DELETE uses its target up) and the requests particular to it (conflicts,
 * 304, 429, unknown filters), each with the status it must answer. The bad requests every
 * operation gets (no token, wrong scope, malformed input, oversized body...) are derived from the
 * document by openapi_contract_test.ts.
 */
import { FailureLimiter } from "../../../server/http/failure_rate.ts";
import { ADMIN_CLIENT } from "../../helpers/service.ts";
import { ADMIN_CASES } from "./contract_admin_cases.ts";
import type { Case, Ctx, Probe } from "./contract_context.ts";

export type { Auth, Ctx, Probe, Request } from "./contract_context.ts";

const basic = (id: string, secret: string) => `Basic ${btoa(`${id}:${secret}`)}`;
const client = { client_id: ADMIN_CLIENT.id, client_secret: ADMIN_CLIENT.secret };

/** Runs `send` while the token endpoint's failure limit refuses in-process requests. */
async function whileFailingTooOften(ctx: Ctx, send: () => Promise<void>): Promise<void> {
  const failures = ctx.svc.deps.failures;
  const kept = failures.token;
  failures.token = new FailureLimiter(1, 60_000);
  failures.token.fail("unknown"); // in-process requests have no client address
  try {
    await send();
  } finally {
    failures.token = kept;
  }
}

/** A 304 probe: the ETag a first request answers, sent back in If-None-Match. */
async function notModified(ctx: Ctx, path: string, id: number): Promise<Probe> {
  const first = await ctx.svc.api("GET", `/api/v1${path}/${id}`, ctx.tokens.full);
  await first.body?.cancel();
  return {
    what: "If-None-Match with its ETag",
    params: { id: String(id) },
    headers: { "If-None-Match": first.headers.get("ETag") ?? "none" },
    expect: 304,
  };
}

/** The OAuth 2.0 endpoints taking a `token`. */
function tokenEndpoint(): Case {
  return {
    setup: async (ctx) => ({ form: { token: await ctx.svc.adminToken(), ...client } }),
    ok: 200,
    more: async (ctx) => [
      { what: "an unknown token", form: { token: "nope", ...client }, expect: 200 },
      { what: "no token", form: client, expect: 400 },
      { what: "no client authentication", form: { token: "nope" }, expect: 401 },
      {
        what: "a wrong secret through Basic",
        form: { token: "nope" },
        headers: { Authorization: basic(ADMIN_CLIENT.id, "wrong") },
        expect: 401,
      },
      {
        what: "failing too often",
        form: { token: await ctx.svc.adminToken(), ...client },
        around: (send) => whileFailingTooOften(ctx, send),
        expect: 429,
      },
    ],
  };
}

const people = (kind: "customers" | "agents", id: (ctx: Ctx) => number): Case[] => [
  {
    setup: (ctx) => ({ params: { id: String(id(ctx)) } }),
    ok: 200,
    more: async (ctx) => [await notModified(ctx, `/${kind}`, id(ctx))],
  },
  {
    setup: () => ({ query: { limit: "2" } }),
    ok: 200,
    more: (): Probe[] => [
      { what: "a cursor it did not give out", query: { cursor: "nope" }, expect: 400 },
      { what: "?app= naming no app", query: { app: "no-such-app" }, expect: 404 },
      { what: "an unknown organization", query: { organization: "no-such-org" }, expect: 400 },
    ],
  },
];

const [getCustomer, listCustomers] = people("customers", (ctx) => ctx.launch.customerId);
const [getAgent, listAgents] = people("agents", (ctx) => ctx.launch.agentId);

/** Every operation of /api/v1, by "METHOD /path" as the document names it. */
export const CASES: Record<string, Case> = {
  "POST /oauth2/token": {
    setup: () => ({ form: { grant_type: "client_credentials", ...client } }),
    ok: 200,
    more: (ctx) => [
      { what: "no grant_type", form: client, expect: 400 },
      { what: "another grant", form: { grant_type: "password", ...client }, expect: 400 },
      {
        what: "a scope the client may not use",
        form: { grant_type: "client_credentials", scope: "nope", ...client },
        expect: 400,
      },
      {
        what: "a wrong secret in the body",
        form: { grant_type: "client_credentials", ...client, client_secret: "wrong" },
        expect: 400,
      },
      {
        what: "a wrong secret through Basic",
        form: { grant_type: "client_credentials" },
        headers: { Authorization: basic(ADMIN_CLIENT.id, "wrong") },
        expect: 401,
      },
      { what: "no client authentication", form: { grant_type: "client_credentials" }, expect: 401 },
      {
        what: "failing too often",
        form: { grant_type: "client_credentials", ...client },
        around: (send) => whileFailingTooOften(ctx, send),
        expect: 429,
      },
    ],
  },
  "POST /oauth2/revoke": tokenEndpoint(),
  "POST /oauth2/introspect": tokenEndpoint(),

  "GET /sessions/{id}": {
    setup: (ctx) => ({ params: { id: String(ctx.launch.sessionId) } }),
    ok: 200,
    more: async (ctx) => [
      await notModified(ctx, "/sessions", ctx.launch.sessionId),
    ],
  },
  "GET /sessions": {
    setup: () => ({ query: { limit: "2", status: "open" } }),
    ok: 200,
    more: (): Probe[] => [
      { what: "an unknown status", query: { status: "bogus" }, expect: 400 },
      { what: "a cursor it did not give out", query: { cursor: "nope" }, expect: 400 },
      { what: "?app= naming no app", query: { app: "no-such-app" }, expect: 404 },
      { what: "an unknown organization", query: { organization: "no-such-org" }, expect: 400 },
    ],
  },
  "PATCH /sessions/{id}": {
    setup: (ctx) => ({
      params: { id: String(ctx.launch.sessionId) },
      json: { status: "open" },
    }),
    ok: 200,
    more: (ctx) => [{
      what: "a custom field that is not configured",
      params: { id: String(ctx.launch.sessionId) },
      json: { customFields: { noSuchField: "x" } },
      expect: 400,
    }],
  },
  "GET /sessions/{id}/events": {
    setup: (ctx) => ({ params: { id: String(ctx.launch.sessionId) } }),
    ok: 200,
  },
  "POST /sessions/{id}/remote": {
    setup: (ctx) => ({ params: { id: String(ctx.launch.sessionId) } }),
    ok: 201,
  },
  "GET /sessions/{id}/remote": {
    setup: (ctx) => ({ params: { id: String(ctx.launch.sessionId) } }),
    ok: 200,
  },
  "GET /sessions/{id}/remote/{remoteId}": {
    setup: async (ctx) => {
      const id = ctx.launch.sessionId;
      const res = await ctx.svc.api("POST", `/api/v1/sessions/${id}/remote`, ctx.tokens.full);
      return { params: { id: String(id), remoteId: String((await res.json()).id) } };
    },
    ok: 200,
  },
  "GET /customers/{id}": getCustomer,
  "GET /customers": listCustomers,
  "GET /agents/{id}": getAgent,
  "GET /agents": listAgents,
  "GET /launches": {
    setup: (ctx) => ({ query: { app: ctx.app.appName, limit: "2" } }),
    ok: 200,
    more: (): Probe[] => [
      { what: "since that is no date-time", query: { since: "yesterday" }, expect: 400 },
      { what: "?app= naming no app", query: { app: "no-such-app" }, expect: 404 },
    ],
  },
  "GET /launches/{id}": {
    setup: (ctx) => ({ params: { id: String(ctx.launch.launchId) } }),
    ok: 200,
    more: async (ctx) => [
      await notModified(ctx, "/launches", ctx.launch.launchId),
    ],
  },
  "GET /deliveries": {
    setup: (ctx) => ({ query: { app: ctx.callbackApp.appName, status: "pending" } }),
    ok: 200,
    more: (): Probe[] => [
      { what: "an unknown event type", query: { type: "bogus" }, expect: 400 },
      { what: "a sessionId that is no id", query: { sessionId: "x" }, expect: 400 },
      { what: "?app= naming no app", query: { app: "no-such-app" }, expect: 404 },
    ],
  },
  "POST /deliveries/{id}/redeliver": {
    setup: (ctx) => ({ params: { id: String(ctx.deliveryId) } }),
    ok: 202,
  },

  ...ADMIN_CASES,

  "GET /openapi.json": { setup: () => ({}), ok: 200 },
  "GET /docs": { setup: () => ({}), ok: 200 },
};
