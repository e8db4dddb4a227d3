-- Which releases (deno.json "version") migrated this database, so that a release can tell it is
-- running on a database a newer release already migrated (a rolling upgrade in progress, or a
-- rollback): such a release applies nothing, and keeps the newer stored functions, which the
-- compatibility rule of docs/operations.md keeps usable by the release before. Written by
-- db/schema_status.ts after each migration run; a table so that migrate-to-postgres moves it.
create table schema_releases (
  version text primary key,
  migrated_at timestamptz not null default now()
);
