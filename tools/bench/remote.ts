/**
 * `deno task bench-remote [--quick]`: the screen-sharing benchmark (issue 36), also run by
 * `deno task bench`. On a database of its own on PostgreSQL, with host candidates on loopback
 * (REMOTE_ICE_ADDRESSES=127.0.0.1): click on Share → first frame on the agent's side, in two
 * Chromium processes on one service process (remote_frame.ts, 20 runs; --quick: 5), then the
 * signaling fan-out, 250 remote sessions with the agents' sockets on one service process and the
 * customers' on a second one (remote_fanout.ts, 20 s; --quick: 5 s), and one customer socket's
 * bursts of candidates checked for loss and order (remote_burst.ts). Prints its rows and verdict
 * lines and writes tools/bench/results/<date>-remote.md (-remote-quick.md with --quick);
 * `deno task bench` puts them in its table.
 */
import postgres from "postgres";
import { CLIENT, serviceEnv, startServer, TOKEN_BODY } from "./bench_service.ts";
import { freePort, stop } from "./processes.ts";
import { firstFrames } from "./remote_frame.ts";
import { fanOut } from "./remote_fanout.ts";
import { burstOrder } from "./remote_burst.ts";
import { renderRows, type TableRow } from "./wrk.ts";
import { type Figures, remoteVerdictLines } from "./verdict.ts";

/** Remote sessions in the fan-out (two sockets each). */
export const FAN_OUT_PAIRS = 250;
/** Messages each fan-out socket sends per second. */
export const FAN_OUT_RATE = 1;

/** The rows and figures of the screen-sharing cases. */
export interface RemoteBench {
  rows: TableRow[];
  figures: Pick<Figures, "remoteFirstFrameP95Ms" | "remoteSignalingP99Ms">;
}

async function adminToken(base: string): Promise<string> {
  const res = await fetch(`${base}/api/v1/oauth2/token`, {
    method: "POST",
    headers: { "Content-Type": "application/x-www-form-urlencoded" },
    body: TOKEN_BODY,
  });
  const body = await res.json();
  if (!body.access_token) throw new Error(`token for ${CLIENT.id}: ${JSON.stringify(body)}`);
  return body.access_token;
}

function notMeasured(name: string, err: unknown): TableRow {
  const message = err instanceof Error ? err.message : String(err);
  return { name, note: `not measured: ${message.split("\n")[0]}` };
}

/** Runs both cases on a new database of the server at `databaseUrl`; drops it afterwards. */
export async function remoteBench(
  root: string,
  databaseUrl: string,
  quick: boolean,
): Promise<RemoteBench> {
  const admin = postgres(databaseUrl, { max: 1, onnotice: () => {} });
  const dbName = `pl_rbench_${Date.now()}`;
  const url = new URL(databaseUrl);
  url.pathname = `/${dbName}`;
  const tmp = await Deno.makeTempDir({ prefix: "pl-rbench-" });
  const env = {
    ...serviceEnv(url.href, tmp, Deno.env.get("DATABASE_POOL_SIZE")),
    REMOTE_ICE_ADDRESSES: "127.0.0.1",
  };
  const servers: Deno.ChildProcess[] = [];
  const rows: TableRow[] = [];
  const figures: RemoteBench["figures"] = {};
  try {
    await admin.unsafe(`create database ${dbName}`);
    const portA = freePort();
    servers.push(
      await startServer(root, { ...env, PUBLIC_URL: `http://127.0.0.1:${portA}` }, portA),
    );
    const a = `http://127.0.0.1:${portA}`;
    const token = await adminToken(a);

    const runs = quick ? 5 : 20;
    const frameName = "screen sharing: click to first frame";
    console.log(`  screen sharing: ${runs} shares, click to first frame on the agent's side ...`);
    try {
      // A failed run lists its session's signaling rows: id, sender, type.
      const db = postgres(url.href, { max: 1, onnotice: () => {} });
      const diagnose = async (sessionId: number) => {
        const [row] = await db`
          select string_agg(s.id || ' ' || s.sender || ' ' || (s.body::json ->> 'type'), ', '
            order by s.id) as rows
          from remote_signals s join remote_sessions r on r.id = s.remote_id
          where r.session_id = ${sessionId}`;
        return `rows: ${row?.rows ?? "none"}`;
      };
      const f = await firstFrames(a, token, runs, diagnose).finally(() => db.end());
      figures.remoteFirstFrameP95Ms = f.p95;
      rows.push({
        name: frameName,
        p50Ms: f.p50,
        note: `${runs} runs, two Chromium processes, host candidates on loopback; p95 ` +
          `${f.p95.toFixed(0)} ms ${f.p95 <= 2000 ? "✔" : "✘"} (target ≤ 2 s); min ` +
          `${Math.min(...f.times).toFixed(0)}, max ${
            Math.max(...f.times.filter(Number.isFinite)).toFixed(0)
          } ms` +
          (f.byResize ? `; ${f.byResize} seen by the video's resize first` : "") +
          (f.failures.length ? `; ${f.failures.length} FAILED: ${f.failures.join("; ")}` : ""),
      });
    } catch (err) {
      rows.push(notMeasured(frameName, err));
    }

    const portB = freePort();
    servers.push(
      await startServer(root, { ...env, PUBLIC_URL: `http://127.0.0.1:${portB}` }, portB),
    );
    const b = `http://127.0.0.1:${portB}`;
    const seconds = quick ? 5 : 20;
    const fanName = `screen sharing: signaling fan-out, ${2 * FAN_OUT_PAIRS} sockets, 2 processes`;
    console.log(
      `  screen sharing: ${2 * FAN_OUT_PAIRS} signaling sockets on 2 processes, ` +
        `${FAN_OUT_RATE} message/s each, ${seconds} s ...`,
    );
    try {
      const r = await fanOut(a, b, token, {
        pairs: FAN_OUT_PAIRS,
        rate: FAN_OUT_RATE,
        seconds,
        warmUpMs: quick ? 2_000 : 5_000,
      });
      figures.remoteSignalingP99Ms = r.p99Ms;
      const lost = r.sent - r.received;
      rows.push({
        name: fanName,
        connections: r.sockets,
        rate: r.perSecond,
        p50Ms: r.p50Ms,
        p99Ms: r.p99Ms,
        errors: r.errors,
        note: `send → receive on the other process; p99 ${r.p99Ms.toFixed(1)} ms ` +
          `${r.p99Ms <= 50 ? "✔" : "✘"} (target ≤ 50 ms), max ${r.maxMs.toFixed(0)} ms; ` +
          `${r.sent} sent, ${r.received} received in ${seconds} s` +
          (lost ? ` (${lost} NOT RECEIVED)` : " (none lost)"),
      });
    } catch (err) {
      rows.push(notMeasured(fanName, err));
    }

    const burstName = "screen sharing: signaling bursts, order and loss, 2 processes";
    try {
      const o = { bursts: quick ? 5 : 20, size: 30 };
      const r = await burstOrder(a, b, token, o);
      const fine = r.lost === 0 && r.outOfOrder === 0;
      rows.push({
        name: burstName,
        note: `${o.bursts} bursts of ${o.size} candidates (an offer's trickle) from one customer ` +
          `socket: ${r.received} of ${r.sent} received, ${r.lost} lost, ${r.outOfOrder} out of ` +
          `order ${fine ? "✔" : "✘"} (each once, in order)`,
      });
    } catch (err) {
      rows.push(notMeasured(burstName, err));
    }
  } finally {
    for (const s of servers) await stop(s);
    await admin.unsafe(`drop database if exists ${dbName} with (force)`);
    await admin.end();
    await Deno.remove(tmp, { recursive: true });
  }
  return { rows, figures };
}

if (import.meta.main) {
  const quick = Deno.args.includes("--quick");
  const root = new URL("../../", import.meta.url).pathname;
  const databaseUrl = Deno.env.get("DATABASE_URL") ?? "postgres://postgres@127.0.0.1:5432/test";
  const load = async () => (await Deno.readTextFile("/proc/loadavg")).split(" ")[0];
  const loadBefore = await load();
  console.log(`Screen-sharing benchmark (${quick ? "quick" : "full"})`);
  const { rows, figures } = await remoteBench(root, databaseUrl, quick);
  const cpu = (await Deno.readTextFile("/proc/cpuinfo").catch(() => ""))
    .match(/model name\s*:\s*(.*)/)?.[1] ?? "unknown CPU";
  const header = `Machine: ${navigator.hardwareConcurrency} cores, ${cpu}; Deno ` +
    `${Deno.version.deno}; load average ${loadBefore} before the run, ${await load()} after; ` +
    `services, PostgreSQL, both Chromium processes and the socket client on the same machine.`;
  const verdict = remoteVerdictLines(figures).map((l) => `    ${l}`).join("\n");
  const text = `${header}\n\n${renderRows(rows)}\n\nVerdict (issue 36 targets):\n\n${verdict}`;
  console.log(`\n${text}`);
  const day = new Date().toISOString().slice(0, 10);
  const file = `${day}-remote${quick ? "-quick" : ""}.md`;
  await Deno.writeTextFile(
    `${root}tools/bench/results/${file}`,
    `# Screen-sharing benchmark ${day}${quick ? " (quick)" : ""}\n\n` +
      `\`deno task bench-remote${quick ? " --quick" : ""}\`\n\n${text}\n`,
  );
  console.log(`\nwritten to tools/bench/results/${file}`);
}
