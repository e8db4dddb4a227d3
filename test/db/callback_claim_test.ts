/**
 * The outbox claim (claim_callback_events) and batch recording (finish_callback_attempts) on a
 * backlog whose statistics are stale (no ANALYZE after the bulk insert): oldest due first, one
 * event per session at a time, leases, concurrent claims never sharing an event, and a batch of
 * outcomes recorded in one statement.
 */
import assert from "node:assert/strict";
import { backends } from "../helpers/db.ts";
import { migrate } from "../../db/migrate.ts";
import type { Sql, Tx } from "../../db/mod.ts";
import {
  type AttemptRecord,
  claimDueEvents,
  finishAttempts,
  listDeliveries,
} from "../../db/queries/callback_events.ts";

const SESSIONS = 1_000;
const PER_SESSION = 3;

/** An app with SESSIONS sessions and `perSession` pending events each, written session by session. */
async function backlog(sql: Sql, perSession = PER_SESSION): Promise<number> {
  const [app] = await sql`insert into apps (app_name, name, auth_type, api_key_sealed,
    callback_url) values ('claim', 'Claim', 'signed_request', 'sealed', 'https://crm.example/')
    returning id`;
  await sql`insert into customers (app_id, email)
    select ${app.id}, 'c' || g || '@example.org' from generate_series(1, ${SESSIONS}) g`;
  await sql`insert into sessions (app_id, customer_id)
    select app_id, id from customers order by id`;
  await sql`insert into callback_events (webhook_id, app_id, session_id, type, payload)
    select 'msg_' || s.id || '_' || n, s.app_id, s.id, 'session.updated', '{}'
    from sessions s, generate_series(1, ${perSession}) n order by s.id, n`;
  return app.id;
}

const attempt = (statusCode: number | null, error: string | null = null): AttemptRecord => ({
  startedAt: new Date(),
  durationMs: 3,
  statusCode,
  error,
  responseSnippet: statusCode ? "ok" : null,
  url: "https://crm.example/",
});

/** A burst of 20 pending events for every session of the app (statistics not refreshed). */
async function burst(sql: Sql, appId: number): Promise<void> {
  await sql`insert into callback_events (webhook_id, app_id, session_id, type, payload)
    select 'burst_' || s.id || '_' || n, s.app_id, s.id, 'session.updated', '{}'
    from sessions s, generate_series(1, 20) n where s.app_id = ${appId}`;
}

/** Records every event of a claimed batch as delivered. */
async function delivered(sql: Tx, events: { id: number }[]): Promise<void> {
  await finishAttempts(
    sql,
    events.map((e) => ({ eventId: e.id, attempt: attempt(200), next: { status: "delivered" } })),
  );
}

/** What `work` read: sequential scans of callback_events, scans of its indexes, entries read. */
interface Reads {
  seqScans: number;
  dueIndexScans: number;
  dueIndexEntries: number;
  primaryKeyEntries: number;
}

/**
 * What `work` read, counted before and after within one transaction: the counts may include
 * this connection's earlier transactions not yet reported.
 */
async function readsDuring(sql: Sql, work: (tx: Tx) => Promise<void>): Promise<Reads> {
  return await sql.begin(async (tx) => {
    const count = async (): Promise<Reads> => {
      const [row] = await tx`select
        (select seq_scan from pg_stat_xact_user_tables
          where relname = 'callback_events')::int as seq_scans,
        pg_stat_get_xact_numscans('callback_events_due_idx'::regclass)::int as due_index_scans,
        pg_stat_get_xact_tuples_returned('callback_events_due_idx'::regclass)::int
          as due_index_entries,
        pg_stat_get_xact_tuples_returned('callback_events_pkey'::regclass)::int
          as primary_key_entries`;
      return row as unknown as Reads;
    };
    const before = await count();
    await work(tx);
    const after = await count();
    return {
      seqScans: after.seqScans - before.seqScans,
      dueIndexScans: after.dueIndexScans - before.dueIndexScans,
      dueIndexEntries: after.dueIndexEntries - before.dueIndexEntries,
      primaryKeyEntries: after.primaryKeyEntries - before.primaryKeyEntries,
    };
  });
}

for (const backend of backends) {
  const name = (what: string) => `callback claim: ${what} [${backend.name}]`;

  Deno.test(name("oldest due first, one event per session, leases respected"), async () => {
    const db = await backend.open();
    try {
      await migrate(db.sql);
      await backlog(db.sql);
      const first = await claimDueEvents(db.sql, 64, 60_000);
      assert.equal(first.length, 64);
      const sessions = first.map((e) => e.sessionId);
      assert.equal(new Set(sessions).size, 64, "one event per session");
      const [{ heads }] = await db.sql`select array_agg(id order by id)::bigint[] as heads from (
        select min(id) as id from callback_events group by session_id order by 1 limit 64) h`;
      assert.deepEqual(first.map((e) => Number(e.id)), heads.map(Number), "the oldest heads");
      assert.ok(first.every((e) => e.attempts === 1 && e.app.appName === "claim"));

      // Leased: not claimed again; the next claim takes the next sessions' heads.
      const second = await claimDueEvents(db.sql, 64, 60_000);
      assert.equal(second.length, 64);
      assert.ok(second.every((e) => !sessions.includes(e.sessionId)), "held sessions wait");
      assert.ok(Number(second[0].id) > Number(first.at(-1)!.id));

      // A lease that ran out (its worker died) is taken over, with the attempt counted.
      await db.sql`update callback_events set lease_until = now() - interval '1 second'
        where id = ${first[0].id}`;
      const rest = await claimDueEvents(db.sql, SESSIONS * PER_SESSION, 60_000);
      const again = rest.filter((e) => first.some((f) => f.id === e.id));
      assert.deepEqual(again.map((e) => [e.id, e.attempts]), [[first[0].id, 2]]);
    } finally {
      await db.close();
    }
  });

  Deno.test(
    name("a retry waiting for its time holds back its session's later events"),
    async () => {
      const db = await backend.open();
      try {
        await migrate(db.sql);
        await backlog(db.sql);
        const [head] = await claimDueEvents(db.sql, 1, 60_000);
        await finishAttempts(db.sql, [{
          eventId: head.id,
          attempt: attempt(503),
          next: { status: "pending", retryInMs: 60_000 },
        }]);
        const all = await claimDueEvents(db.sql, SESSIONS * PER_SESSION, 60_000);
        assert.equal(all.length, SESSIONS - 1, "every other session's head, nothing of this one");
        assert.ok(!all.some((e) => e.sessionId === head.sessionId));
      } finally {
        await db.close();
      }
    },
  );

  Deno.test(name("a batch's outcomes are recorded in one statement"), async () => {
    const db = await backend.open();
    try {
      await migrate(db.sql);
      await backlog(db.sql);
      const [a, b, c, d] = await claimDueEvents(db.sql, 4, 60_000);
      // d is redelivered by an administrator while its attempt is in flight.
      await db.sql`update callback_events set status = 'pending', lease_until = null
        where id = ${d.id}`;
      await finishAttempts(db.sql, [
        { eventId: a.id, attempt: attempt(200), next: { status: "delivered" } },
        { eventId: b.id, attempt: attempt(null, "timed out"), next: { status: "failed" } },
        { eventId: c.id, attempt: attempt(500), next: { status: "pending", retryInMs: 5_000 } },
        { eventId: d.id, attempt: attempt(200), next: { status: "delivered" } },
      ]);
      const rows = await db.sql`select id, status, last_error, lease_until,
          finished_at is not null as finished,
          next_attempt_at > now() + interval '4 seconds' as later,
          (select count(*)::int from callback_attempts t where t.event_id = e.id) as logged
        from callback_events e where id in ${db.sql([a.id, b.id, c.id, d.id])} order by id`;
      assert.deepEqual(rows.map((r) => [r.status, r.lastError, r.finished, r.logged]), [
        ["delivered", "HTTP 200", true, 1],
        ["failed", "timed out", true, 1],
        ["pending", "HTTP 500", false, 1],
        ["pending", null, false, 1],
      ]);
      assert.ok(rows.every((r) => r.leaseUntil === null));
      assert.equal(rows[2].later, true, "retried after its backoff");
      await finishAttempts(db.sql, []);
    } finally {
      await db.close();
    }
  });

  Deno.test(name("a claim rewrites its rows in place, no index entry written"), async () => {
    const db = await backend.open();
    try {
      await migrate(db.sql);
      await backlog(db.sql);
      const updates = await db.sql.begin(async (tx) => {
        assert.equal((await claimDueEvents(tx, 64, 60_000)).length, 64);
        const [row] = await tx`select
          pg_stat_get_xact_tuples_updated('callback_events'::regclass)::int as updated,
          pg_stat_get_xact_tuples_hot_updated('callback_events'::regclass)::int as hot`;
        return row;
      });
      assert.deepEqual({ ...updates }, { updated: 64, hot: 64 }, "heap-only updates");
      // "Open" is read from finished_at, so the two must agree.
      await assert.rejects(
        db.sql`update callback_events set status = 'delivered'
          where id = (select min(id) from callback_events)`,
        /callback_events_open_check/,
      );
    } finally {
      await db.close();
    }
  });

  Deno.test(name("the deliveries list of open events reads the index of open events"), async () => {
    const db = await backend.open();
    try {
      await migrate(db.sql);
      await backlog(db.sql);
      // All but the last 20 delivered: the open ones are few among many.
      await db.sql`update callback_events set status = 'delivered', finished_at = now()
        where id < (select max(id) - 19 from callback_events)`;
      await db.sql`analyze callback_events`;
      for (const status of ["pending", "delivering"]) {
        let listed = -1;
        const reads = await readsDuring(db.sql, async (tx) => {
          listed = (await listDeliveries(tx, { status, limit: 50 })).length;
        });
        assert.equal(listed, status === "pending" ? 20 : 0);
        assert.equal(reads.seqScans, 0, `${status}: no sequential scan`);
        assert.equal(reads.primaryKeyEntries, 0, `${status}: the primary key is not walked`);
      }
    } finally {
      await db.close();
    }
  });

  Deno.test(
    name("plans cached while the outbox was small never read it whole once it is large"),
    async () => {
      // One connection, so the claim's plans are cached where the large backlog is claimed.
      const db = await backend.open({ max: 1 });
      try {
        await migrate(db.sql);
        const appId = await backlog(db.sql, 0);
        // A quiet outbox: a few events at a time, claimed and recorded, until PostgreSQL keeps
        // generic plans for the claim's statements (after five executions).
        for (let round = 0; round < 8; round++) {
          await db.sql`insert into callback_events (webhook_id, app_id, session_id, type, payload)
            select 'quiet_' || ${round} || '_' || id, app_id, id, 'session.updated', '{}'
            from sessions order by id limit 2`;
          const events = await claimDueEvents(db.sql, 64, 60_000);
          assert.equal(events.length, 2);
          await delivered(db.sql, events);
        }
        // Then a backlog of 20,000 (statistics not refreshed, as between two autovacuums).
        await burst(db.sql, appId);
        const reads = await readsDuring(db.sql, async (tx) => {
          const events = await claimDueEvents(tx, 64, 60_000);
          assert.equal(events.length, 64);
          await delivered(tx, events);
        });
        assert.equal(
          reads.seqScans,
          0,
          "the claim and the recording read callback_events by index only",
        );
      } finally {
        await db.close();
      }
    },
  );

  Deno.test(
    name("after a quiet spell is analyzed, a candidate's session check reads that session only"),
    async () => {
      const db = await backend.open({ max: 1 });
      try {
        await migrate(db.sql);
        const appId = await backlog(db.sql, 1);
        // Everything delivered, then analyzed: the statistics say no event is ever pending.
        for (let events; (events = await claimDueEvents(db.sql, 500, 60_000)).length;) {
          await delivered(db.sql, events);
        }
        await db.sql`analyze callback_events`;
        await burst(db.sql, appId);
        const reads = await readsDuring(db.sql, async (tx) => {
          assert.equal((await claimDueEvents(tx, 64, 60_000)).length, 64);
        });
        assert.equal(reads.dueIndexScans, 1, "one walk of the due index, none per candidate");
        // The row locks and the final update find their rows by id: about two entries each,
        // never a walk of the primary key.
        assert.ok(reads.primaryKeyEntries <= 4 * 64, `${reads.primaryKeyEntries} entries`);
        // Recording the batch finds each event by id too, whatever the plans cached for it.
        for (let round = 0; round < 8; round++) {
          await delivered(db.sql, await claimDueEvents(db.sql, 4, 60_000));
        }
        const claimed = await claimDueEvents(db.sql, 64, 60_000);
        const recorded = await readsDuring(db.sql, (tx) => delivered(tx, claimed));
        assert.equal(recorded.dueIndexEntries, 0, "no walk of the due index");
        // A few entries per event, never a walk of the 20,000: the lock and the update each meet
        // every version of the event the index still points to. How many that is depends on
        // whether earlier scans could already mark the versions the claim replaced as dead, which
        // other transactions of the cluster delay: 6 per event alone, 7 in a loaded full run.
        assert.ok(recorded.primaryKeyEntries <= 10 * 64, `${recorded.primaryKeyEntries} entries`);
      } finally {
        await db.close();
      }
    },
  );

  if (backend.name === "postgres") {
    Deno.test(name("concurrent claims never share an event"), async () => {
      const db = await backend.open({ max: 8 });
      try {
        await migrate(db.sql);
        await backlog(db.sql);
        const claims = await Promise.all(
          Array.from({ length: 8 }, () => claimDueEvents(db.sql, 50, 60_000)),
        );
        const ids = claims.flat().map((e) => e.id);
        assert.equal(ids.length, 400, "each claim filled its batch");
        assert.equal(new Set(ids).size, ids.length, "no event claimed twice");
        const sessions = claims.flat().map((e) => e.sessionId);
        assert.equal(new Set(sessions).size, sessions.length, "no session in two claims");
      } finally {
        await db.close();
      }
    });

    // A claim is one statement whose own snapshot predates the function's: rows committed in
    // between (an event and its session's CRM context, written by one launch) must both be read.
    Deno.test(name("a claimed event carries the CRM context committed with it"), async () => {
      const db = await backend.open({ max: 4 });
      try {
        await migrate(db.sql);
        const appId = await backlog(db.sql, 0);
        const ids = (await db.sql`select id from sessions order by id`).map((r) => r.id);
        let writing = true;
        const writer = (async () => {
          for (const id of ids) {
            await db.sql`with ctx as (insert into session_crm_contexts
                (session_id, app_id, instance_url) values (${id}, ${appId}, 'https://crm.example'))
              insert into callback_events (webhook_id, app_id, session_id, type, payload)
              values (${"msg_crm_" + id}, ${appId}, ${id}, 'session.created', '{}')`;
          }
          writing = false;
        })();
        const claimed: { crm: unknown }[] = [];
        for (;;) {
          // Done only when a claim that started after the last commit finds nothing.
          const written = !writing;
          const batch = await claimDueEvents(db.sql, 64, 60_000);
          claimed.push(...batch);
          if (written && !batch.length) break;
        }
        await writer;
        assert.equal(claimed.length, ids.length);
        const without = claimed.filter((e) => e.crm === null).length;
        assert.equal(
          without,
          0,
          `${without} of ${ids.length} events claimed without their context`,
        );
      } finally {
        await db.close();
      }
    });
  }
}
