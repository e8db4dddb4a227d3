-- A launch's whole database work (spec §5.4) in ONE call: one round trip, one implicit
-- transaction. `l` is built by server/launch/flow.ts (db/queries/launch.ts applyLaunch) from the
-- parsed payload. This function is the launch's only decider: it finds every refusal and raises
-- them as one list; server/launch/refusals.ts only words them (status, message, field path).
--
--   PLL01  the launch is refused (detail: a JSON array of {code, value, ...}; nothing is written)
--   PLL03  a dry run reached its end (detail: the result it would have answered, without the
--          ids of the rows it created: they are its own, see launch_row_id, and no events)
create or replace function launch_apply(l jsonb) returns jsonb language plpgsql as $$
declare
  v_app bigint := (l ->> 'appId')::bigint;
  v_org bigint;
  named_session bigint := (l ->> 'sessionId')::bigint;
  v_replay_key text := l -> 'replay' ->> 'key';
  ag jsonb := l -> 'agent';
  cu jsonb := l -> 'customer';
  se jsonb := l -> 'session';
  dry boolean := coalesce((l ->> 'dryRun')::boolean, false);
  inserted integer;
  refusals jsonb;
  -- The named session as found (locked): all null when there is none.
  s_id bigint;
  s_status text;
  s_customer bigint;
  s_assignee bigint;
  people record;
  agent jsonb;
  customer jsonb;
  conflicts jsonb := '[]'::jsonb;
  v_session bigint;
  v_launch bigint;
  emitted integer := 0;
  result jsonb;
begin
  -- 1. Lookups. The named session is locked (another app's session is no session). The replay
  -- key is stored here, so a second use of the same signed request finds it taken: a replay is
  -- refused at once (the first use was accepted; nothing else about it matters). Every other
  -- refusal is collected, in this order, with what it is about: disabled id fields, the named
  -- session, custom fields not configured, guided-path search values that name nothing live.
  -- The app's organization, read under the key-share lock the launch's inserts take on the app
  -- anyway (their foreign keys): moving the app (FOR UPDATE) waits for this launch, or this
  -- launch for the move, so no launch writes an old organization's agent into a moved app.
  select a.organization_id into v_org from apps a where a.id = v_app for key share;
  select x.id, x.status, x.customer_id, x.assignee_id into s_id, s_status, s_customer, s_assignee
  from sessions x where x.id = named_session and x.app_id = v_app for update;
  if v_replay_key is not null then
    insert into launch_nonces (app_id, nonce, expires_at)
    values (v_app, v_replay_key, (l -> 'replay' ->> 'expiresAt')::timestamptz)
    on conflict do nothing;
    get diagnostics inserted = row_count;
    if inserted = 0 then
      raise exception using errcode = 'PLL01', message = 'launch refused',
        detail = '[{"code": "launch_replayed"}]';
    end if;
  end if;
  select coalesce(jsonb_agg(x.r order by x.step, x.o1, x.o2), '[]'::jsonb) into refusals
  from (
    select 1 as step, v.o as o1, 0::bigint as o2,
      jsonb_build_object('code', 'field_disabled', 'value', v.field) as r
    from field_settings f, lateral (values (1::bigint, 'externalSessionId', f.external_session_id),
      (2::bigint, 'externalCustomerId', f.external_customer_id)) as v(o, field, enabled)
    where f.id and not v.enabled
    union all
    select 2, 0, 0, jsonb_build_object('code', 'session_not_found', 'value', named_session)
    where named_session is not null and s_id is null
    union all
    select 3, k.n, 0, jsonb_build_object('code', 'unknown_custom_fields', 'value', k.name)
    from jsonb_array_elements_text(l -> 'customFieldNames') with ordinality as k(name, n)
    where not exists (select 1 from custom_field_definitions d where d.name = k.name)
    union all
    select 4, e.n, v.n, jsonb_build_object('code', 'invalid_paths', 'type', e.entry ->> 'type',
      'entry', e.n - 1, 'index', v.n - 1, 'value', v.value)
    from jsonb_array_elements(l -> 'pathSearch') with ordinality as e(entry, n),
      jsonb_array_elements_text(e.entry -> 'values') with ordinality as v(value, n)
    where case e.entry ->> 'type'
      when 'category_uid' then not exists (select 1 from path_categories c
        where c.uid = v.value::uuid and c.deleted_at is null)
      when 'path_uid' then not exists (select 1 from paths p
        where p.uid = v.value::uuid and p.deleted_at is null and p.published)
      when 'tag' then not exists (select 1 from paths p
        where p.tags @> array[v.value] and p.deleted_at is null and p.published)
      else false end
  ) x;

  -- 2. The agent and the customer, in one statement (also when step 1 found refusals, so that
  -- the agent's own are reported with them), again when a concurrent launch inserted one of them
  -- first (its row is found on the next pass).
  for attempt in 1..3 loop
    with
    -- The agent, in the spec's order and only ever among the agents of the app's organization
    -- (between organizations nothing is shared): by the app's external id, else by e-mail
    -- (inside one organization an agent is one person across its apps). An enabled agent is
    -- updated, keeping its e-mail when another agent of the organization holds the payload's;
    -- else one is inserted; then its external id for this app. An administrator's e-mail
    -- (administrators are global) and a disabled agent refuse the launch.
    a_by_id as (
      select x.user_id as id from agent_external_ids x join users u on u.id = x.user_id
      where x.app_id = v_app and x.external_id = ag ->> 'externalId'
        and u.role = 'agent' and u.organization_id = v_org
    ),
    a_found as (
      select id, disabled_at is not null as disabled from users
      where role = 'agent' and organization_id = v_org
        and (id = (select id from a_by_id) or lower(email) = lower(ag ->> 'email'))
      order by (id = (select id from a_by_id)) is true desc
      limit 1
    ),
    a_admin as (
      select id from users where role = 'admin' and (lower(email) = lower(ag ->> 'email')
        or id in (select x.user_id from agent_external_ids x
          where x.app_id = v_app and x.external_id = ag ->> 'externalId'))
      limit 1
    ),
    a_email_owner as (
      select id from users
      where role = 'agent' and organization_id = v_org and lower(email) = lower(ag ->> 'email')
        and id <> (select id from a_found)
    ),
    a_updated as (
      update users u set
        external_id = coalesce(ag ->> 'externalId', u.external_id),
        email = case when exists (select 1 from a_email_owner) then u.email
          else ag ->> 'email' end,
        first_name = ag ->> 'firstName',
        last_name = ag ->> 'lastName',
        phone = coalesce(ag ->> 'phone', u.phone),
        locale = coalesce(ag ->> 'locale', u.locale),
        updated_at = now()
      from a_found where u.id = a_found.id and not a_found.disabled
        and not exists (select 1 from a_admin)
      returning u.id, false as disabled, false as created
    ),
    a_inserted as (
      insert into users (id, organization_id, role, external_id, email, first_name, last_name,
        phone, locale, password_hash) overriding system value
      select launch_row_id('users', dry), v_org, 'agent', ag ->> 'externalId', ag ->> 'email',
        ag ->> 'firstName', ag ->> 'lastName', ag ->> 'phone', ag ->> 'locale',
        -- A random password known to nobody (spec §2.4), hashed here: the launch does no hashing
        -- of its own. It never verifies: only the PBKDF2 hashes an administrator sets do.
        'random-sha256$' || encode(sha256(convert_to(
          gen_random_uuid()::text || gen_random_uuid()::text, 'UTF8')), 'base64')
      where not exists (select 1 from a_found) and not exists (select 1 from a_admin)
      on conflict do nothing
      returning id, false as disabled, true as created
    ),
    a_mapped as (
      insert into agent_external_ids (app_id, external_id, user_id)
      select v_app, ag ->> 'externalId', x.id
      from (select id from a_updated union all select id from a_inserted) x
      where ag ->> 'externalId' is not null
      on conflict (app_id, user_id) do update set external_id = excluded.external_id
      returning 1
    ),
    agent_row as (
      select x.*, (select id from a_email_owner) as email_owner_id,
        (select id from a_admin) as admin_id
      from (
        select * from a_updated union all select * from a_inserted
        union all select id, true, false from a_found where disabled
        -- An administrator's e-mail or id writes no agent: the launch is refused below.
        union all select id, false, false from a_admin
      ) x
    ),
    -- The customer, among the app's own customers: the session's own customer when its e-mail
    -- or external id matches, else by e-mail, else by external id; updated, or inserted. An
    -- existing external id is never overwritten and an e-mail or external id held by another
    -- customer is never moved: the statement reports who holds them.
    c_app as not materialized (
      select * from customers where customers.app_id = v_app
    ),
    c_found as (
      select id, external_id from (
        select id, external_id, 1 as rank from c_app
        where id = s_customer
          and (lower(email) = lower(cu ->> 'email') or external_id = cu ->> 'externalId')
        union all
        select id, external_id, 2 from c_app where lower(email) = lower(cu ->> 'email')
        union all
        select id, external_id, 3 from c_app where external_id = cu ->> 'externalId'
      ) x order by rank limit 1
    ),
    c_email_owner as (
      select id from c_app
      where lower(email) = lower(cu ->> 'email') and id <> (select id from c_found)
    ),
    c_external_owner as (
      select id from c_app
      where external_id = cu ->> 'externalId' and id <> (select id from c_found)
    ),
    c_updated as (
      update customers c set
        external_id = case
          when c.external_id is null and not exists (select 1 from c_external_owner)
            then cu ->> 'externalId'
          else c.external_id end,
        email = case when exists (select 1 from c_email_owner) then c.email
          else cu ->> 'email' end,
        first_name = cu ->> 'firstName',
        last_name = cu ->> 'lastName',
        phone1 = cu ->> 'phone1',
        phone2 = coalesce(cu ->> 'phone2', c.phone2),
        other_phone = coalesce(cu ->> 'otherPhone', c.other_phone),
        updated_at = now()
      from c_found where c.id = c_found.id
      returning c.id, false as created, c_found.external_id as previous_external_id
    ),
    c_inserted as (
      insert into customers (id, app_id, external_id, email, first_name, last_name, phone1,
        phone2, other_phone) overriding system value
      select launch_row_id('customers', dry), v_app, cu ->> 'externalId', cu ->> 'email',
        cu ->> 'firstName', cu ->> 'lastName', cu ->> 'phone1', cu ->> 'phone2', cu ->> 'otherPhone'
      where not exists (select 1 from c_found)
      on conflict do nothing
      returning id, true as created, null::text as previous_external_id
    ),
    customer_row as (
      select x.*, (select id from c_email_owner) as email_owner_id,
        (select id from c_external_owner) as external_id_owner_id
      from (select * from c_updated union all select * from c_inserted) x
    )
    select
      (select to_jsonb(x) from (select * from agent_row limit 1) x) as agent,
      (select to_jsonb(x) from (select * from customer_row limit 1) x) as customer
    into people;
    agent := people.agent;
    customer := people.customer;
    exit when agent is not null and customer is not null;
  end loop;
  if agent is null or customer is null then
    raise exception 'agent and customer: concurrent inserts kept winning';
  end if;
  -- An administrator's e-mail, or a disabled agent, is never logged in by a launch.
  if agent ->> 'admin_id' is not null then
    refusals := refusals || jsonb_build_object('code', 'agent_is_admin', 'value', ag ->> 'email',
      'ids', jsonb_build_array((agent ->> 'admin_id')::bigint));
  end if;
  if (agent ->> 'disabled')::boolean then
    refusals := refusals || jsonb_build_object('code', 'agent_disabled', 'value', ag ->> 'email',
      'ids', jsonb_build_array((agent ->> 'id')::bigint));
  end if;
  -- Every refusal found, as one list (server/launch/refusals.ts words them); the raise rolls
  -- back everything this call wrote.
  if jsonb_array_length(refusals) > 0 then
    raise exception using errcode = 'PLL01', message = 'launch refused', detail = refusals::text;
  end if;

  -- 3. The identity conflicts the upsert resolved, as warnings (after the caller's own).
  if agent ->> 'email_owner_id' is not null then
    conflicts := conflicts || jsonb_build_object(
      'path', 'context.user.email',
      'code', 'agent_email_in_use',
      'message', format('%s belongs to another user (%s); agent %s, found by its external id, '
        || 'keeps its own e-mail', ag ->> 'email', agent ->> 'email_owner_id', agent ->> 'id'),
      'agentId', (agent ->> 'id')::bigint,
      'otherUserId', (agent ->> 'email_owner_id')::bigint);
  end if;
  if customer ->> 'previous_external_id' is not null
    and customer ->> 'previous_external_id' <> cu ->> 'externalId'
  then
    conflicts := conflicts || jsonb_build_object(
      'path', 'context.environment.parameters.contactId',
      'code', 'customer_external_id_differs',
      'message', format('customer %s, found by contactEmail, keeps its external id %s; the '
        || 'launch sent %s', customer ->> 'id', customer ->> 'previous_external_id',
        cu ->> 'externalId'),
      'customerId', (customer ->> 'id')::bigint,
      'keptExternalId', customer ->> 'previous_external_id',
      'sentExternalId', cu ->> 'externalId');
  end if;
  if customer ->> 'external_id_owner_id' is not null then
    conflicts := conflicts || jsonb_build_object(
      'path', 'context.environment.parameters.contactId',
      'code', 'customer_external_id_in_use',
      'message', format('contactId %s belongs to customer %s; it was not moved to customer %s',
        cu ->> 'externalId', customer ->> 'external_id_owner_id', customer ->> 'id'),
      'customerId', (customer ->> 'id')::bigint,
      'otherCustomerId', (customer ->> 'external_id_owner_id')::bigint);
  end if;
  if customer ->> 'email_owner_id' is not null then
    conflicts := conflicts || jsonb_build_object(
      'path', 'context.environment.parameters.contactEmail',
      'code', 'customer_email_in_use',
      'message', format('%s belongs to customer %s; customer %s keeps its own e-mail',
        cu ->> 'email', customer ->> 'email_owner_id', customer ->> 'id'),
      'customerId', (customer ->> 'id')::bigint,
      'otherCustomerId', (customer ->> 'email_owner_id')::bigint);
  end if;

  -- 4. The session: created and assigned to the agent; or updated
  -- (customer, references, and the assignee only when `assign` is set and the session is open,
  -- so a closed session keeps its status and assignment).
  if s_id is null then
    insert into sessions (id, customer_id, assignee_id, external_reference, reference_id, app_id,
      target) overriding system value
    values (launch_row_id('sessions', dry), (customer ->> 'id')::bigint,
      (agent ->> 'id')::bigint, se ->> 'externalReference', se ->> 'referenceId', v_app,
      se ->> 'target')
    returning id into v_session;
  else
    update sessions set
      customer_id = (customer ->> 'id')::bigint,
      external_reference = se ->> 'externalReference',
      reference_id = coalesce(se ->> 'referenceId', reference_id),
      assignee_id = case when (se ->> 'assign')::boolean and status = 'open'
        then (agent ->> 'id')::bigint else assignee_id end,
      updated_at = now()
    where id = s_id
    returning id into v_session;
  end if;

  -- The CRM instance and sealed token of a Canvas-style launch, kept on the session.
  if l -> 'crm' ->> 'instanceUrl' is not null then
    insert into session_crm_contexts (session_id, app_id, instance_url, oauth_token_sealed)
    values (v_session, v_app, l -> 'crm' ->> 'instanceUrl',
      l -> 'crm' ->> 'oauthTokenSealed')
    on conflict (session_id) do update set
      instance_url = excluded.instance_url,
      oauth_token_sealed = excluded.oauth_token_sealed, updated_at = now();
  end if;

  -- Custom fields (configured ones only: checked in step 1).
  insert into session_custom_fields (session_id, name, value)
  select v_session, key, value from jsonb_each(l -> 'customFields')
  on conflict (session_id, name)
    do update set value = excluded.value, updated_at = now();

  -- Devices: one with a serial is upserted by (kind, serial); one without is added unless the
  -- session already has an identical one (a relaunch does not duplicate it).
  insert into devices (id, session_id, kind, serial, properties) overriding system value
  select launch_row_id('devices', dry), v_session, d ->> 'kind', d -> 'properties' ->> 'serial',
    d -> 'properties'
  from jsonb_array_elements(l -> 'devices') d
  where d -> 'properties' ? 'serial' or not exists (
    select 1 from devices x
    where x.session_id = v_session and x.kind = d ->> 'kind' and x.serial is null
      and x.properties = d -> 'properties'
  )
  on conflict (session_id, kind, serial)
    do update set properties = excluded.properties, updated_at = now();

  -- Teams of the app's organization: created or renamed, and the agent made a member.
  with team_rows as (
    insert into teams (id, organization_id, team_id, name) overriding system value
    select launch_row_id('teams', dry), v_org, t ->> 'teamId', t ->> 'teamName'
    from jsonb_array_elements(l -> 'teams') t
    on conflict (organization_id, team_id) do update set name = excluded.name,
      updated_at = now()
    returning id
  )
  insert into team_members (team_id, user_id)
  select id, (agent ->> 'id')::bigint from team_rows
  on conflict do nothing;

  -- The launch record and the portal login it creates (its restrictions follow the launch; its
  -- language is the payload's locale, else the agent's profile, else English).
  insert into launches (id, app_id, app_name, outcome, agent_id, session_id, client_address,
    user_agent, payload, view, warnings, key_used, protection, replay_key) overriding system value
  values (launch_row_id('launches', dry), v_app, l ->> 'appName', 'ok', (agent ->> 'id')::bigint,
    v_session, l ->> 'clientAddress', l ->> 'userAgent', l -> 'payload', l -> 'view',
    (l -> 'warnings') || conflicts, l ->> 'keyUsed', l ->> 'protection', v_replay_key)
  returning id into v_launch;
  insert into logins (token_hash, user_id, expires_at, launch_id, kind, locale)
  values (l -> 'login' ->> 'tokenHash', (agent ->> 'id')::bigint,
    (l -> 'login' ->> 'expiresAt')::timestamptz, v_launch, 'portal',
    coalesce(ag ->> 'locale',
      (select u.locale from users u where u.id = (agent ->> 'id')::bigint), 'en'));

  -- Callback events, by the rule every session change follows (session_callback_types): a
  -- launch never changes the status, always updates the session's data, and moves an open
  -- session to its agent when `assign` is set. A dry run writes none (their ids are drawn).
  if not dry then
    emitted := emit_callback_events(v_session, session_callback_types(s_id is null, s_status,
        s_status, s_assignee,
        case when s_id is null or ((se ->> 'assign')::boolean and s_status = 'open')
          then (agent ->> 'id')::bigint else s_assignee end, true),
      l ->> 'eventTimestamp', l ->> 'traceparent');
  end if;

  result := jsonb_build_object(
    'launchId', case when v_launch > 0 then v_launch end,
    'sessionId', case when v_session > 0 then v_session end,
    'agentId', case when (agent ->> 'id')::bigint > 0 then (agent ->> 'id')::bigint end,
    'customerId', case when (customer ->> 'id')::bigint > 0 then (customer ->> 'id')::bigint end,
    'events', emitted,
    'warnings', (l -> 'warnings') || conflicts,
    'plan', jsonb_build_object(
      'agent', case when (agent ->> 'created')::boolean then 'create' else 'update' end,
      'customer', case when (customer ->> 'created')::boolean then 'create' else 'update' end,
      'session', case when s_id is null then 'create' else 'update' end,
      'assign', s_id is null or ((se ->> 'assign')::boolean and s_status = 'open')));
  if dry then
    raise exception using errcode = 'PLL03', message = 'dry run', detail = result::text;
  end if;
  return result;
end $$;
