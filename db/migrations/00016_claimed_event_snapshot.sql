-- The claimed events, read after the claim: each with its app's delivery settings and its
-- session's CRM context (a Canvas-style launch's instance URL and sealed token).
--
-- The worker used to claim and read in one statement (select ... from claim_callback_events()
-- join apps ..., with a subquery on session_crm_contexts). In READ COMMITTED that statement's
-- snapshot is taken before the claim function runs, while the function's own statements take
-- fresh ones: a launch committing in between (its event and its CRM context in one transaction)
-- had its event claimed but its context read from the older snapshot, as missing, and the
-- delivery failed for good ("this session's launch carried no client.instanceUrl"). A VOLATILE
-- function takes a fresh snapshot for its statement, after the claim: it sees every row
-- committed with the events it is given.
--
-- Rows are found by primary key only: sequential scans are off (as for the claim, migration
-- 00015), so a plan cached while the outbox was small never reads it whole.
create function claimed_callback_events(ids bigint[])
returns table (
  id bigint, webhook_id text, app_id bigint, session_id bigint, reference_id text, type text,
  payload jsonb, attempts integer, app json, crm json
)
language sql
volatile
set enable_seqscan = off
as $$
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
      from session_crm_contexts x where x.session_id = e.session_id)
  from callback_events e join apps a on a.id = e.app_id
  where e.id = any(ids)
  order by e.id
$$;
