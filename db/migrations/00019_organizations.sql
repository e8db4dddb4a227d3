-- Organizations: the company that owns apps, agents and teams. Inside one organization apps share
-- agents (matched by e-mail, each app with its own external ids) and teams; between organizations
-- nothing is shared. Sessions and customers keep belonging to the app that created them.
-- Organization `default` (id 1, the columns' default) holds everything that exists already, so a
-- single-company deployment sees no change. Administrators stay global: their organization_id
-- means nothing and their e-mail is unique among administrators.
create table organizations (
  id bigint generated always as identity primary key,
  slug text not null unique check (slug ~ '^[a-z0-9][a-z0-9-]{1,62}$'),
  name text not null,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
insert into organizations (id, slug, name) overriding system value values (1, 'default', 'Default');
select setval(pg_get_serial_sequence('organizations', 'id'), 1);

alter table apps add column organization_id bigint not null default 1 references organizations (id);
create index apps_organization_id_idx on apps (organization_id);

alter table users add column organization_id bigint not null default 1 references organizations (id);
drop index users_email_key;
create unique index users_agent_email_key on users (organization_id, lower(email))
  where role = 'agent';
create unique index users_admin_email_key on users (lower(email)) where role = 'admin';

alter table teams add column organization_id bigint not null default 1 references organizations (id);
alter table teams drop constraint teams_team_id_key;
alter table teams add constraint teams_organization_team_id_key unique (organization_id, team_id);
