/**
 * SQL of the launch's agent and customer: one statement that finds or creates both, resolving
 * identity conflicts in the spec's order (race-safe: unique indexes + on conflict).
 */
import type { Tx } from "../mod.ts";

// deno-lint-ignore no-explicit-any
type Json = any;

/** Agent profile fields a launch writes. */
export interface AgentValues {
  externalId: string | null;
  email: string;
  firstName: string;
  lastName: string;
  phone: string | null;
  locale: string | null;
}

/**
 * The agent found or created; `admin` means the identity is an administrator's and `disabled` a
 * disabled agent's, both left unchanged; `created` means this statement inserted it;
 * `emailOwnerId` is another user who holds the payload's e-mail (the agent then keeps its own).
 */
export interface AgentUpsert {
  id: number;
  admin: boolean;
  disabled: boolean;
  created: boolean;
  emailOwnerId: number | null;
  emailOwnerIsAdmin: boolean;
}

/**
 * The agent CTEs, in the spec's order: find by the app's external id, else by e-mail (an agent is
 * one person across apps); update an enabled agent (never an admin), keeping its e-mail when another user
 * holds the payload's; else insert; then record the external id for this app.
 */
function agentCtes(tx: Tx, appId: number, v: AgentValues) {
  return tx`
    a_by_id as (
      select user_id as id from agent_external_ids
      where app_id = ${appId} and external_id = ${v.externalId}
    ),
    a_found as (
      select id, role, disabled_at is not null as disabled from users
      where id = (select id from a_by_id) or lower(email) = lower(${v.email})
      order by (id = (select id from a_by_id)) is true desc
      limit 1
    ),
    a_email_owner as (
      select id, role from users
      where lower(email) = lower(${v.email}) and id <> (select id from a_found)
    ),
    a_updated as (
      update users u set
        external_id = coalesce(${v.externalId}, u.external_id),
        email = case when exists (select 1 from a_email_owner) then u.email else ${v.email} end,
        first_name = ${v.firstName},
        last_name = ${v.lastName},
        phone = coalesce(${v.phone}, u.phone),
        locale = coalesce(${v.locale}, u.locale),
        updated_at = now()
      from a_found where u.id = a_found.id and a_found.role = 'agent' and not a_found.disabled
      returning u.id, false as admin, false as disabled, false as created
    ),
    a_inserted as (
      insert into users (role, external_id, email, first_name, last_name, phone, locale,
        password_hash)
      select 'agent', ${v.externalId}, ${v.email}, ${v.firstName}, ${v.lastName}, ${v.phone},
        ${v.locale},
        -- A random password known to nobody (spec §2.4): PostgreSQL hashes 244 random bits, so
        -- the launch does no hashing of its own. It never verifies: only the PBKDF2 hashes an
        -- administrator sets do.
        'random-sha256$' || encode(sha256(convert_to(
          gen_random_uuid()::text || gen_random_uuid()::text, 'UTF8')), 'base64')
      where not exists (select 1 from a_found)
      on conflict do nothing
      returning id, false as admin, false as disabled, true as created
    ),
    a_mapped as (
      insert into agent_external_ids (app_id, external_id, user_id)
      select ${appId}, ${v.externalId}, a.id
      from (select id from a_updated union all select id from a_inserted) a
      where ${v.externalId}::text is not null
      on conflict (app_id, user_id) do update set external_id = excluded.external_id
      returning 1
    ),
    agent as (
      select *, (select id from a_email_owner) as email_owner_id,
        coalesce((select role = 'admin' from a_email_owner), false) as email_owner_is_admin
      from (
        select * from a_updated union all select * from a_inserted
        union all select id, true, disabled, false from a_found where role = 'admin'
        union all select id, false, true, false from a_found where role = 'agent' and disabled
      ) a
    )
  `;
}

/** Customer fields a launch writes. */
export interface CustomerValues {
  externalId: string;
  email: string;
  firstName: string;
  lastName: string;
  phone1: string;
  phone2: string | null;
  otherPhone: string | null;
}

/**
 * The customer CTEs, in the spec's order and among the app's own customers: the session's own
 * customer when its e-mail or external id matches, else by e-mail, else by external id; update
 * it, or insert one. An existing external id is never overwritten, an external id or e-mail held
 * by another customer is never moved: the found customer keeps its own, and the statement reports
 * who holds them.
 */
function customerCtes(
  tx: Tx,
  appId: number,
  v: CustomerValues,
  sessionCustomerId: number | null,
) {
  return tx`
    -- Inlined into each lookup (not materialized), so each one uses its (app_id, ...) index.
    c_app as not materialized (select * from customers where app_id = ${appId}),
    c_found as (
      select id, external_id from (
        select id, external_id, 1 as rank from c_app
        where id = ${sessionCustomerId}
          and (lower(email) = lower(${v.email}) or external_id = ${v.externalId})
        union all
        select id, external_id, 2 from c_app where lower(email) = lower(${v.email})
        union all
        select id, external_id, 3 from c_app where external_id = ${v.externalId}
      ) c order by rank limit 1
    ),
    c_email_owner as (
      select id from c_app
      where lower(email) = lower(${v.email}) and id <> (select id from c_found)
    ),
    c_external_owner as (
      select id from c_app
      where external_id = ${v.externalId} and id <> (select id from c_found)
    ),
    c_updated as (
      update customers c set
        external_id = case
          when c.external_id is null and not exists (select 1 from c_external_owner)
            then ${v.externalId}
          else c.external_id end,
        email = case when exists (select 1 from c_email_owner) then c.email else ${v.email} end,
        first_name = ${v.firstName},
        last_name = ${v.lastName},
        phone1 = ${v.phone1},
        phone2 = coalesce(${v.phone2}, c.phone2),
        other_phone = coalesce(${v.otherPhone}, c.other_phone),
        updated_at = now()
      from c_found where c.id = c_found.id
      returning c.id, false as created, c_found.external_id as previous_external_id
    ),
    c_inserted as (
      insert into customers (app_id, external_id, email, first_name, last_name, phone1, phone2,
        other_phone)
      select ${appId}, ${v.externalId}, ${v.email}, ${v.firstName}, ${v.lastName}, ${v.phone1},
        ${v.phone2}, ${v.otherPhone}
      where not exists (select 1 from c_found)
      on conflict do nothing
      returning id, true as created, null::text as previous_external_id
    ),
    customer as (
      select *, (select id from c_email_owner) as email_owner_id,
        (select id from c_external_owner) as external_id_owner_id
      from (select * from c_updated union all select * from c_inserted) c
    )
  `;
}

/** The customer found or created, with the identities other customers hold. */
export interface CustomerUpsert {
  id: number;
  created: boolean;
  /** The external id the customer had before (null for a new one, or none). */
  previousExternalId: string | null;
  emailOwnerId: number | null;
  externalIdOwnerId: number | null;
}

/** What upsertPeople did; a null side lost a race to a concurrent insert (the caller retries). */
export interface PeopleUpsert {
  agent: AgentUpsert | null;
  customer: CustomerUpsert | null;
}

/**
 * Upserts the agent and the customer in ONE statement. Identity conflicts are resolved, not
 * refused (see agentCtes, customerCtes); a unique violation (23505) can only come from a race with
 * a concurrent launch, and the caller runs the transaction again.
 */
export async function upsertPeople(
  tx: Tx,
  appId: number,
  agent: AgentValues,
  customer: CustomerValues,
  sessionCustomerId: number | null,
): Promise<PeopleUpsert> {
  const [row] = await tx<{ agent: Json | null; customer: Json | null }[]>`
    with ${agentCtes(tx, appId, agent)}, ${customerCtes(tx, appId, customer, sessionCustomerId)}
    select
      (select row_to_json(a) from (select * from agent limit 1) a) as agent,
      (select row_to_json(c) from (select * from customer limit 1) c) as customer
  `;
  const a = row.agent;
  const c = row.customer;
  return {
    agent: a && {
      id: Number(a.id),
      admin: a.admin,
      disabled: a.disabled,
      created: a.created,
      emailOwnerId: a.email_owner_id === null ? null : Number(a.email_owner_id),
      emailOwnerIsAdmin: a.email_owner_is_admin,
    },
    customer: c && {
      id: Number(c.id),
      created: c.created,
      previousExternalId: c.previous_external_id,
      emailOwnerId: c.email_owner_id === null ? null : Number(c.email_owner_id),
      externalIdOwnerId: c.external_id_owner_id === null ? null : Number(c.external_id_owner_id),
    },
  };
}
