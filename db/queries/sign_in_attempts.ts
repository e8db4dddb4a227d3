/** SQL of the sign-in limiter: reserve an attempt atomically, forget it after a success. */
import type { Sql } from "../mod.ts";

/**
 * Reserves an attempt for (account, address): counts it as a failure until `forgetAttempts`,
 * and sets when the next one may be made (`delaySeconds(failures)` from now). Returns null when
 * an attempt is not allowed yet, with how many milliseconds to wait. Rows idle for
 * `windowSeconds` start again from zero.
 */
export async function reserveAttempt(
  sql: Sql,
  key: { account: string; address: string },
  policy: { free: number; maxDelaySeconds: number; windowSeconds: number },
): Promise<{ waitMs: number }> {
  // After the n-th failure the next attempt waits 0 s while n < free, then 2^(n - free) s (1, 2,
  // 4 ...), at most maxDelaySeconds.
  const [row] = await sql<{ waitMs: number }[]>`
    with up as (
      insert into sign_in_attempts as a (account, address, failures, next_allowed_at)
      values (${key.account}, ${key.address}, 1,
        now() + make_interval(secs => case when ${policy.free} <= 1 then 1 else 0 end))
      on conflict (account, address) do update set
        failures = case
          when a.last_attempt_at < now() - make_interval(secs => ${policy.windowSeconds}) then 1
          else a.failures + 1 end,
        last_attempt_at = now(),
        next_allowed_at = now() + make_interval(secs => least(
          ${policy.maxDelaySeconds}::float8,
          case
            when a.last_attempt_at < now() - make_interval(secs => ${policy.windowSeconds})
              then 0
            when a.failures + 1 < ${policy.free} then 0
            else power(2, a.failures + 1 - ${policy.free})
          end))
      where a.next_allowed_at <= now()
        or a.last_attempt_at < now() - make_interval(secs => ${policy.windowSeconds})
      returning 0 as wait_ms
    )
    select wait_ms from up
    union all
    select greatest(1, ceil(extract(epoch from (next_allowed_at - now())) * 1000))::int
    from sign_in_attempts
    where account = ${key.account} and address = ${key.address} and not exists (select 1 from up)
  `;
  return { waitMs: row?.waitMs ?? 0 };
}

/** Forgets the failures of (account, address) after a successful sign-in. */
export async function forgetAttempts(
  sql: Sql,
  key: { account: string; address: string },
): Promise<void> {
  await sql`delete from sign_in_attempts
    where account = ${key.account} and address = ${key.address}`;
}
