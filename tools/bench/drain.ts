/**
 * Callback delivery at volume: `count` events queued at once in the outbox (one per session of
 * the bench app, through emit_callback_events as a launch writes them), drained by the running
 * service's delivery worker into the counting receiver. Answers the rate, whether every event
 * arrived exactly once and, given the server's pid, the CPU per delivered event.
 */
import type postgres from "postgres";
import { commandCpuSeconds, mainThreadCpuSeconds, processCpuSeconds } from "./system.ts";

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
  /**
   * While the worker drained (not queueing): CPU per event of the server, of PostgreSQL and of
   * the receiver (the CRM's side, on the same cores), and the share of the drain's time the
   * server's main thread (its JavaScript) was on a core.
   */
  cpu?: { serverMs: number; postgresMs: number; receiverMs?: number; mainThreadBusy: number };
}

async function stats(receiver: string): Promise<{ received: number; distinct: number }> {
  return await (await fetch(`${receiver}/stats`)).json();
}

/** True while any event is pending or being delivered (stops at the first: cheap). */
async function open(bench: postgres.Sql): Promise<boolean> {
  const [{ open }] = await bench`select exists (select 1 from callback_events
    where finished_at is null) as open`;
  return open;
}

const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Waits until the outbox has nothing pending (deadline `ms`); answers whether it got there. */
async function settled(bench: postgres.Sql, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (!(await open(bench))) return true;
    await pause(200);
  }
  return false;
}

/**
 * Waits until the receiver has seen `target` deliveries in all and the outbox has nothing open
 * (deadline `ms`): asks the receiver every 20 ms, which costs PostgreSQL nothing, and the outbox
 * once a second (an event that failed for good never reaches the receiver) and every 20 ms once
 * the receiver has seen them all (the last batch is recorded after it is delivered). The bench
 * once counted the open events every 200 ms: 20 to 30 ms of PostgreSQL's CPU each time, 10 to 15
 * % of a core taken from the drain and charged to its events.
 */
async function drained(
  bench: postgres.Sql,
  receiver: string,
  target: number,
  ms: number,
): Promise<void> {
  const deadline = Date.now() + ms;
  for (let polls = 1; Date.now() < deadline; polls++) {
    const all = (await stats(receiver)).received >= target;
    if ((all || polls % 50 === 0) && !(await open(bench))) return;
    await pause(20);
  }
}

/** Queues `count` events and waits for the worker to deliver them all (`deadlineMs` at most). */
export async function drain(
  bench: postgres.Sql,
  receiver: string,
  appId: number,
  count: number,
  deadlineMs: number,
  serverPid?: number,
  receiverPid?: number,
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
    serverPid
      ? {
        server: await processCpuSeconds(serverPid),
        postgres: await commandCpuSeconds("postgres"),
        mainThread: await mainThreadCpuSeconds(serverPid),
        receiver: receiverPid ? await processCpuSeconds(receiverPid) : 0,
      }
      : undefined;
  const cpuBefore = await cpuNow();
  const started = performance.now();
  await drained(bench, receiver, before.received + count, deadlineMs);
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
    ...(cpuBefore && cpuAfter
      ? {
        cpu: {
          serverMs: (cpuAfter.server - cpuBefore.server) * 1000 / count,
          postgresMs: (cpuAfter.postgres - cpuBefore.postgres) * 1000 / count,
          ...(receiverPid
            ? { receiverMs: (cpuAfter.receiver - cpuBefore.receiver) * 1000 / count }
            : {}),
          mainThreadBusy: (cpuAfter.mainThread - cpuBefore.mainThread) / seconds,
        },
      }
      : {}),
  };
}
