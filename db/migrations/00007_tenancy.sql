-- Portal Launcher: each app sees only its own. Sessions and customers belong to the app that
-- created them, customers are matched within their app, and an agent's external id (user.id of a
-- launch) is per app; an agent is one person across apps, matched by e-mail.

-- 1. Sessions without an app take the app of their first launch (from the launch log).
update sessions s set app_id = l.app_id
from (
  select distinct on (session_id) session_id, app_id from launches
  where session_id is not null and app_id is not null order by session_id, id
) l
where l.session_id = s.id and s.app_id is null;

-- 2. Customers belong to the app of their first session. A customer whose sessions came from
--    several apps is copied into each further app, and those sessions point at the copy.
alter table customers add column app_id bigint references apps (id) on delete cascade;
drop index customers_external_id_key;
drop index customers_email_key;
update customers c set app_id = s.app_id
from (
  select distinct on (customer_id) customer_id, app_id from sessions
  where app_id is not null order by customer_id, id
) s
where s.customer_id = c.id;
alter table customers add column copied_from bigint;
insert into customers (app_id, external_id, email, first_name, last_name, phone1, phone2,
  other_phone, created_at, updated_at, copied_from)
select distinct on (c.id, s.app_id) s.app_id, c.external_id, c.email, c.first_name, c.last_name,
  c.phone1, c.phone2, c.other_phone, c.created_at, c.updated_at, c.id
from sessions s join customers c on c.id = s.customer_id
where s.app_id is not null and s.app_id <> c.app_id;
update sessions s set customer_id = cp.id
from customers cp
where cp.copied_from = s.customer_id and cp.app_id = s.app_id;
alter table customers drop column copied_from;

create unique index customers_app_external_id_key on customers (app_id, external_id);
create unique index customers_app_email_key on customers (app_id, lower(email));
create index sessions_app_id_idx on sessions (app_id, id);

-- 3. Agents' external ids, per app: from the apps each agent launched through.
create table agent_external_ids (
  app_id bigint not null references apps (id) on delete cascade,
  external_id text not null,
  user_id bigint not null references users (id) on delete cascade,
  created_at timestamptz not null default now(),
  primary key (app_id, external_id),
  unique (app_id, user_id)
);
insert into agent_external_ids (app_id, external_id, user_id)
select distinct on (l.app_id, u.id) l.app_id, u.external_id, u.id
from launches l join users u on u.id = l.agent_id
where l.app_id is not null and u.external_id is not null and u.role = 'agent'
order by l.app_id, u.id, l.id desc
on conflict do nothing;
-- users.external_id stays as the id the agent's latest launch sent (shown by the REST API and
-- the admin screens); it is no longer unique and no longer used to find an agent.
drop index users_external_id_key;

-- What could not be attributed stays without an app: such customers and sessions are reached
-- only by administrators (admin scope, admin screens); no launch matches them.
do $$
declare
  orphan_customers bigint;
  orphan_sessions bigint;
begin
  select count(*) into orphan_customers from customers where app_id is null;
  select count(*) into orphan_sessions from sessions where app_id is null;
  if orphan_customers > 0 or orphan_sessions > 0 then
    raise notice 'tenancy: % customers and % sessions could not be attributed to an app; '
      'only administrators reach them', orphan_customers, orphan_sessions;
  end if;
end $$;
