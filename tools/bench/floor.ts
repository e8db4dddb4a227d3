/**
 * Baseline C, the launch's floor: tools/bench/floor_server.ts (Deno's HTTP server and the
 * database driver doing a launch's shape of work and nothing of the service's) on the bench
 * database, loaded as the launch cases load the service. Its server CPU per request is what a
 * launch's own server CPU cannot go below on this machine and runtime.
 */
import type { WrkResult } from "./wrk.ts";
import { freePort, spawn, stop, waitFor } from "./processes.ts";
import { startV8Flags } from "./bench_service.ts";

/** Runs `load(url, script, pid)` (wrk with the launch bodies of `script`) against the floor. */
export async function launchFloor(
  databaseUrl: string,
  script: string,
  load: (url: string, script: string, pid: number) => Promise<WrkResult>,
): Promise<WrkResult> {
  const root = new URL("../../", import.meta.url).pathname;
  const port = freePort();
  const server = spawn(
    ["run", "-A", ...await startV8Flags(root), "tools/bench/floor_server.ts"],
    { PORT: String(port), DATABASE_URL: databaseUrl },
    root,
  );
  try {
    const url = `http://127.0.0.1:${port}/portal/api/auth/app/bench`;
    await waitFor(url);
    return await load(url, script, server.pid);
  } finally {
    await stop(server);
  }
}
