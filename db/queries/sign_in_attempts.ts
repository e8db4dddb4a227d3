/**
 * SQL of the sign-in limiter: reserve an attempt atomically, give one back, forget a key after a
 * success.
 */
import type { Sql } from "../mod.ts";

/**
 * A reserved attempt, as needed to give it back: when it was made (`at`, exact text of the
 * timestamp) and when the key's attempt before it was, or null when none is in the window.
 */
export interface Reservation {
  at: string;
  before: Date | null;
}

/** How a key counts: free attempts, the longest wait, and how long an idle row is kept. */
export interface AttemptPolicy {
  free: number;
  maxDelaySeconds: number;
  windowSeconds: number;
}

/**
 * Reserves an attempt for (account, address): counts it as a failure until `forgetAttempts` or
 * `giveBackAttempt`, and sets when the next one may be made (the delay the comment below gives).
 * Returns the reservation, or null when an attempt is not allowed yet, with how many
 * milliseconds to wait. Rows idle for `windowSeconds` start again from zero.
 */
export async function reserveAttempt(
  sql: Sql,
  key: { account: string; address: string },
  policy: AttemptPolicy,
): Promise<{ waitMs: number; reservation: Reservation | null }> {
  // After the n-th failure the next attempt waits 0 s while n < free, then 2^(n - free) s (1, 2,
  // 4 ...), at most maxDelaySeconds. `before` is read from the statement's snapshot: every part
  // of one statement sees the row as it was before the statement.
  const [row] = await sql<{ waitMs: number; at: string | null; before: Date | null }[]>`
    with before as (
      select last_attempt_at from sign_in_attempts
      where account = ${key.account} and address = ${key.address}
        and last_attempt_at >= now() - make_interval(secs => ${policy.windowSeconds})
    ), up as (
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
      returning last_attempt_at
    )
    select 0 as wait_ms, last_attempt_at::text as at,
      (select last_attempt_at from before) as before
    from up
    union all
    select greatest(1, ceil(extract(epoch from (next_allowed_at - now())) * 1000))::int,
      null, null
    from sign_in_attempts
    where account = ${key.account} and address = ${key.address} and not exists (select 1 from up)
  `;
  if (!row) return { waitMs: 0, reservation: null };
  return {
    waitMs: row.waitMs,
    reservation: row.at === null ? null : { at: row.at, before: row.before },
  };
}

/**
 * Gives back a reserved attempt that was no failure: the key counts one failure less, and the
 * wait it set is undone. When no attempt was reserved after it, the key is as before the
 * reservation (its idle time runs from the attempt before); otherwise the wait runs from the
 * later attempt with one failure less. A key left without failures is deleted.
 */
export async function giveBackAttempt(
  sql: Sql,
  key: { account: string; address: string },
  reservation: Reservation,
  policy: Pick<AttemptPolicy, "free" | "maxDelaySeconds">,
): Promise<void> {
  // `at` travels as text: a timestamptz parameter would be cut to milliseconds on the way.
  await sql`
    with r as (select ${reservation.at}::text::timestamptz as at),
    gone as (
      delete from sign_in_attempts
      where account = ${key.account} and address = ${key.address}
        and failures <= 1 and last_attempt_at = (select at from r)
    )
    update sign_in_attempts set
      failures = failures - 1,
      last_attempt_at = case when last_attempt_at = (select at from r)
        then coalesce(${reservation.before}::timestamptz, last_attempt_at)
        else last_attempt_at end,
      next_allowed_at = case when last_attempt_at = (select at from r)
        then least(next_allowed_at, (select at from r))
        else least(next_allowed_at, last_attempt_at + make_interval(secs => least(
          ${policy.maxDelaySeconds}::float8,
          case when failures - 1 < ${policy.free} then 0
            else power(2, failures - 1 - ${policy.free}) end)))
        end
    where account = ${key.account} and address = ${key.address} and failures > 1
  `;
}

/** Forgets the failures of (account, address) after a successful sign-in. */
export async function forgetAttempts(
  sql: Sql,
  key: { account: string; address: string },
): Promise<void> {
  await sql`delete from sign_in_attempts
    where account = ${key.account} and address = ${key.address}`;
}
