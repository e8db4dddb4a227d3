/**
 * Callback delivery at volume: `count` events queued at once in the outbox (one per session of
 * the bench app, through emit_callback_events as a launch writes them), drained by the running
 * service's delivery worker into the counting receiver. Answers the rate, whether every event
 * arrived exactly once and, given the server's pid, the CPU per delivered event.
 */
import type postgres from "postgres";
import { commandCpuSeconds, processCpuSeconds } from "./system.ts";

/** What the drain measured. */
export interface DrainResult {
  count: number;
  seconds: number;
  eventsPerSecond: number;
  /** Deliveries the receiver saw, and distinct webhook-ids among them. */
  received: number;
  distinct: number;
  /** Events left not delivered (failed or still pending at the deadline). */
  undelivered: number;
  /** CPU per event of the server and of PostgreSQL while the worker drained (not queueing). */
  cpu?: { serverMs: number; postgresMs: number };
}

async function stats(receiver: string): Promise<{ received: number; distinct: number }> {
  return await (await fetch(`${receiver}/stats`)).json();
}

async function open(bench: postgres.Sql): Promise<number> {
  const [{ n }] = await bench`select count(*)::int as n from callback_events
    where status in ('pending', 'delivering')`;
  return n;
}

/** Waits until the outbox has nothing pending (deadline `ms`); answers whether it got there. */
async function settled(bench: postgres.Sql, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (await open(bench) === 0) return true;
    await new Promise((r) => setTimeout(r, 200));
  }
  return false;
}

/** Queues `count` events and waits for the worker to deliver them all (`deadlineMs` at most). */
export async function drain(
  bench: postgres.Sql,
  receiver: string,
  appId: number,
  count: number,
  deadlineMs: number,
  serverPid?: number,
): Promise<DrainResult> {
  console.log(`  callback drain: waiting for the launches' events to be delivered ...`);
  if (!(await settled(bench, deadlineMs))) throw new Error("the launches' events did not drain");
  const before = await stats(receiver);
  console.log(`  callback drain: ${count} events queued at once ...`);
  const [{ minId }] = await bench`select coalesce(max(id), 0)::bigint as "minId"
    from callback_events`;
  await bench`
    select emit_callback_events(id, '[{"type": "session.updated"}]'::jsonb, now()::text, null)
    from (select id from sessions where app_id = ${appId} order by id limit ${count}) s`;
  const cpuNow = async () =>
    serverPid ? [await processCpuSeconds(serverPid), await commandCpuSeconds("postgres")] : [];
  const cpuBefore = await cpuNow();
  const started = performance.now();
  await settled(bench, deadlineMs);
  const seconds = (performance.now() - started) / 1000;
  const cpuAfter = await cpuNow();
  const after = await stats(receiver);
  const [{ undelivered }] = await bench`select count(*)::int as undelivered from callback_events
    where id > ${minId} and status <> 'delivered'`;
  return {
    count,
    seconds,
    eventsPerSecond: count / seconds,
    received: after.received - before.received,
    distinct: after.distinct - before.distinct,
    undelivered,
    ...(serverPid
      ? {
        cpu: {
          serverMs: (cpuAfter[0] - cpuBefore[0]) * 1000 / count,
          postgresMs: (cpuAfter[1] - cpuBefore[1]) * 1000 / count,
        },
      }
      : {}),
  };
}
