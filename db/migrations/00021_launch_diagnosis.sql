-- A refused launch keeps why (issue 35): its field errors `[{path, code, message}]` and the
-- Inspector's diagnosis of its signed_request (`{signature, causes}`; null when none was read).
alter table launches
  add column errors jsonb not null default '[]'::jsonb,
  add column diagnosis jsonb;
