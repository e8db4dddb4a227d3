-- The one rule for which callback events a change of a session emits, for launches
-- (launch_apply) and for portal and REST changes (db/queries/callback_events.ts) alike:
-- a new session emits session.created alone; a change to an existing one emits, in this order,
-- session.closed or session.reopened when its status changed, session.updated when its data
-- changed (a launch always updates customer and references; custom fields), and
-- session.assigned when its assignee changed. Answers a jsonb array of {"type": ...}.
create or replace function session_callback_types(created boolean, status_from text,
  status_to text, assignee_from bigint, assignee_to bigint, updated boolean)
returns jsonb language sql immutable parallel safe
return case when created then '[{"type": "session.created"}]'::jsonb else
  case when status_to is distinct from status_from
    then jsonb_build_array(jsonb_build_object('type',
      case when status_to = 'closed' then 'session.closed' else 'session.reopened' end))
    else '[]'::jsonb end
  || case when updated then '[{"type": "session.updated"}]'::jsonb else '[]'::jsonb end
  || case when assignee_to is distinct from assignee_from
    then '[{"type": "session.assigned"}]'::jsonb else '[]'::jsonb end
end;
