/**
 * The bench's data and launches: agents, customers and sessions of the bench app (with devices,
 * custom fields and reference ids, so launches emit callback events), and distinct signed launch
 * requests with issuedAt and a nonce, each usable once under replay protection `required`.
 */
import type postgres from "postgres";
import { signPayload } from "../../server/launch/signed_request.ts";
import { SIGNED_REQUEST_FIELD } from "../../server/launch/contract.ts";

/** Sizes of the loaded data. */
export const DATA = { agents: 10_000, customers: 50_000, sessions: 100_000 };

/** Loads the data for app `appId`; answers the first session id. */
export async function loadData(bench: postgres.Sql, appId: number): Promise<number> {
  const { agents, customers, sessions } = DATA;
  await bench.begin(async (tx) => {
    await tx`insert into custom_field_definitions (name, label) values ('priority', 'Priority')`;
    await tx`
      insert into users (role, external_id, email, first_name, last_name)
      select 'agent', 'agent' || g, 'agent' || g || '@bench.example.com', 'Agent', 'Number'
      from generate_series(1, ${agents}) g`;
    await tx`
      insert into agent_external_ids (app_id, external_id, user_id)
      select ${appId}, external_id, id from users where role = 'agent'`;
    await tx`
      insert into customers (app_id, external_id, email, first_name, last_name, phone1)
      select ${appId}, 'C' || g, 'customer' || g || '@bench.example.org', 'Customer', 'Number',
        '555' || lpad(g::text, 7, '0')
      from generate_series(1, ${customers}) g`;
    await tx`
      insert into sessions (app_id, status, external_reference, reference_id, customer_id,
        assignee_id)
      select ${appId}, case when g % 5 = 0 then 'closed' else 'open' end, 'REF' || g, 'R' || g,
        (select min(id) from customers) + (g::bigint * 7919) % ${customers},
        (select min(id) from users where role = 'agent') + (g::bigint * 104729) % ${agents}
      from generate_series(1, ${sessions}) g`;
    await tx`
      insert into devices (session_id, kind, serial, properties)
      select id, 'computer', 'S' || id, jsonb_build_object('name', 'PC-' || id, 'os', 'Windows')
      from sessions where id % 2 = 0`;
    await tx`
      insert into session_custom_fields (session_id, name, value)
      select id, 'priority', '"high"'::jsonb from sessions where id % 3 = 0`;
  });
  await bench`analyze`;
  const [{ minSession }] = await bench`select min(id)::int as "minSession" from sessions`;
  return minSession;
}

/**
 * `count` distinct launch payloads, numbered from `first`: half new sessions, half existing; 10%
 * new agents, 20% new customers; a third with a device, a third with a custom field; every one
 * with issuedAt, a unique nonce and a referenceId (so its session's events go to the CRM).
 */
export function launchPayloads(
  count: number,
  minSession: number,
  stamp: number | string,
  first = 0,
): Record<string, unknown>[] {
  const rand = (n: number) => Math.floor(Math.random() * n);
  const issuedAt = Math.floor(Date.now() / 1000);
  const payloads: Record<string, unknown>[] = [];
  for (let i = first; i < first + count; i++) {
    const agent = i % 10 === 0 ? `new${stamp}x${i}` : `agent${1 + rand(DATA.agents)}`;
    const customer = i % 5 === 0 ? `N${stamp}x${i}` : `C${1 + rand(DATA.customers)}`;
    const customerEmail = customer.startsWith("C")
      ? `customer${customer.slice(1)}@bench.example.org`
      : `${customer.toLowerCase()}@bench.example.org`;
    const params: Record<string, unknown> = {
      referenceNumber: `BR${i}`,
      referenceId: `BRID${stamp}x${i}`,
      contactId: customer,
      contactFirstName: "Grace",
      contactLastName: "Hopper",
      contactEmail: customerEmail,
      contactPhone: "5559876543",
    };
    if (i % 2 === 1) params.sessionId = minSession + rand(DATA.sessions);
    if (i % 3 === 0) params.deviceComputer = { name: "PC", os: "Windows", serial: `B${i}` };
    if (i % 3 === 1) params.customFields = { priority: "low" };
    const payload = {
      algorithm: "HMACSHA256",
      issuedAt,
      nonce: `n${stamp}x${i}`,
      context: {
        user: {
          id: agent,
          email: `${agent}@bench.example.com`,
          first_name: "Ada",
          last_name: "Lovelace",
        },
        environment: { parameters: params },
      },
    };
    payloads.push(payload);
  }
  return payloads;
}

/** `count` distinct launch bodies (form-encoded) of launchPayloads, signed with `apiKey`. */
export async function signLaunches(
  apiKey: string,
  count: number,
  minSession: number,
  stamp: number,
): Promise<string[]> {
  const bodies: string[] = [];
  for (const payload of launchPayloads(count, minSession, stamp)) {
    bodies.push(new URLSearchParams({
      [SIGNED_REQUEST_FIELD]: await signPayload(JSON.stringify(payload), apiKey),
    }).toString());
  }
  return bodies;
}

/**
 * A wrk script posting each of `bodies` once (threads interleave, none repeats while the run
 * lasts shorter than the list): a replayed body would be refused, and show as non-2xx.
 */
export async function writeLaunchScript(tmp: string, name: string, bodies: string[]) {
  const data = `${tmp}/${name}-bodies.lua`;
  await Deno.writeTextFile(
    data,
    "bodies = {\n" + bodies.map((b) => `"${b}"`).join(",\n") + "\n}\n",
  );
  const script = `${tmp}/${name}.lua`;
  await Deno.writeTextFile(
    script,
    `dofile("${data}")
local threads = 0
function setup(thread) thread:set("tid", threads); threads = threads + 1 end
local i = 0
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/x-www-form-urlencoded"
wrk.headers["Accept"] = "application/json"
request = function()
  i = i + 1
  local n = #bodies
  return wrk.format(nil, nil, nil, bodies[((i * 2 + tid) % n) + 1])
end
`,
  );
  return script;
}

/** A wrk script reading random sessions of the loaded data with the bearer `token`. */
export async function writeSessionScript(tmp: string, token: string, minSession: number) {
  const script = `${tmp}/session.lua`;
  const last = DATA.sessions - 1;
  await Deno.writeTextFile(
    script,
    `wrk.headers["Authorization"] = "Bearer ${token}"
math.randomseed(os.time() + math.floor(os.clock() * 1000000))
request = function()
  return wrk.format("GET", "/api/v1/sessions/" .. (${minSession} + math.random(0, ${last})))
end
`,
  );
  return script;
}
