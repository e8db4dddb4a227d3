-- Portal Launcher: a launch records what it ignored, repaired or resolved (ignored fields, identity
-- conflicts, a repaired signed_request) as warnings; the launch log can list launches with any.
alter table launches add column warnings jsonb not null default '[]'::jsonb;
create index launches_with_warnings_idx on launches (id desc) where warnings <> '[]'::jsonb;
