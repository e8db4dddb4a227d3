/**
 * The all-cores variant: `deno task serve` (one server/main.ts per core, with the start task's
 * heap caps) on the bench database, loaded with the launch and REST runs: `serve` shares the single
 * process's pool among its processes (server/ops/supervisor.ts poolShares). Then once more with a
 * whole pool in each process (what `serve` opened before it shared them), to tell the processes'
 * cost from the connections'.
 */
import type { WrkResult } from "./wrk.ts";
import { freePort, peakRssTree, spawn, stop, treePids, waitFor } from "./processes.ts";

/** What the all-cores cases need from the bench run. */
export interface AllCoresSetup {
  root: string;
  env: Record<string, string>;
  /** The single process's pool (DATABASE_POOL_SIZE, default 10). */
  poolSize: number;
  cores: number;
  launchPath: string;
  sessionPath: string;
  scripts: { launch: string; whole: string; session: string };
  /** Runs before each case (VACUUM ANALYZE and a checkpoint). */
  before: () => Promise<void>;
  /** wrk: name, URL, connections, script, the server processes' pids. */
  wrk: (name: string, url: string, conns: number, script: string, pids: number[]) => Promise<
    WrkResult
  >;
}

/** Launch, GET one, and launch with a whole pool each; and the processes' peak RSS together. */
export async function allCoresCases(
  s: AllCoresSetup,
): Promise<{ multi: WrkResult[]; rss: number }> {
  const port = freePort();
  const base = `http://127.0.0.1:${port}`;
  const serve = (env: Record<string, string>) =>
    spawn(
      ["run", "-A", "server/serve.ts", "--host", "127.0.0.1", "--port", String(port)],
      env,
      s.root,
    );
  const multi: WrkResult[] = [];
  const parallel = serve(s.env);
  let rss: number;
  try {
    await waitFor(`${base}/readyz`);
    for (
      const [name, url, script] of [
        ["launch, all cores", `${base}${s.launchPath}`, s.scripts.launch],
        ["GET /api/v1/sessions/:id, all cores", `${base}${s.sessionPath}`, s.scripts.session],
      ]
    ) {
      await s.before();
      multi.push(await s.wrk(name, url, 64, script, await treePids(parallel)));
    }
    rss = await peakRssTree(parallel);
  } finally {
    await stop(parallel);
  }
  const whole = serve({ ...s.env, DATABASE_POOL_SIZE: String(s.poolSize * s.cores) });
  try {
    await waitFor(`${base}/readyz`);
    await s.before();
    multi.push(
      await s.wrk(
        `launch, all cores, ${s.poolSize} connections each`,
        `${base}${s.launchPath}`,
        64,
        s.scripts.whole,
        await treePids(whole),
      ),
    );
  } finally {
    await stop(whole);
  }
  return { multi, rss };
}
