-- The claimed events with what their delivery needs from their app and session (migration
-- 00016): VOLATILE, so its statement takes its snapshot after the claim; sequential scans off.
create or replace function claimed_callback_events(ids bigint[])
returns table (
  id bigint, webhook_id text, app_id bigint, session_id bigint, reference_id text, type text,
  payload jsonb, attempts integer, app json, crm json, traceparent text
)
language plpgsql
volatile
set enable_seqscan = off
as $$
#variable_conflict use_column
begin
  return query
  select e.id, e.webhook_id, e.app_id, e.session_id, e.reference_id, e.type, e.payload,
    e.attempts,
    json_build_object(
      'appName', a.app_name, 'implementor', a.implementor, 'authType', a.auth_type,
      'callbackUrl', a.callback_url, 'callbackMethod', a.callback_method,
      'tokenUrl', a.token_url, 'tokenAuthMethod', a.token_auth_method,
      'consumerKey', a.consumer_key, 'consumerSecretSealed', a.consumer_secret_sealed,
      'callbackSecretSealed', a.callback_secret_sealed,
      'callbackSecretPreviousSealed', a.callback_secret_previous_sealed,
      'callbackSecretPreviousExpiresAt', a.callback_secret_previous_expires_at
    ),
    (select json_build_object('instanceUrl', x.instance_url,
        'oauthTokenSealed', x.oauth_token_sealed)
      from session_crm_contexts x where x.session_id = e.session_id),
    e.traceparent
  from callback_events e join apps a on a.id = e.app_id
  where e.id = any(ids)
  order by e.id;
end $$;
