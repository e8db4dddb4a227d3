/**
 * The service under test, as the bench and the launch profile start it: its environment on the
 * bench database, the single-process server (optionally writing a V8 CPU profile), an admin token
 * from the bootstrap client, and the bench app with the realistic config (every launch single-use
 * with issuedAt and a stored nonce; callbacks to the local receiver).
 */
import type postgres from "postgres";
import { freePort, spawn, stop, waitFor } from "./processes.ts";

const SECRET_KEY = "bench-secret-key-0123456789abcdefghijkl";
/** The bootstrap OAuth client the bench authenticates with. */
export const CLIENT = { id: "bench", secret: "bench-secret-0123456789abcdefghijklmnopqrstuvwxyz" };
const BENCH_APP = { appName: "bench", name: "Bench", authType: "signed_request" };

/** The service's environment on `databaseUrl` (callbacks may reach the local receiver). */
export function serviceEnv(
  databaseUrl: string,
  dataDir: string,
  poolSize?: string,
): Record<string, string> {
  return {
    DATABASE_URL: databaseUrl,
    SECRET_KEY,
    BOOTSTRAP_CLIENT_ID: CLIENT.id,
    BOOTSTRAP_CLIENT_SECRET: CLIENT.secret,
    DATA_DIR: dataDir,
    LOG_LEVEL: "error",
    // No load balancer to wait for: stop at once (tools/bench/processes.ts kills after 5 s).
    SHUTDOWN_DRAIN_MS: "0",
    CALLBACK_ALLOW_PRIVATE_NETWORKS: "true",
    ...(poolSize ? { DATABASE_POOL_SIZE: poolSize } : {}),
  };
}

/** Starts the CRM's callback receiver (tools/bench/receiver.ts, counts webhook-ids). */
export async function startReceiver(
  root: string,
): Promise<{ child: Deno.ChildProcess; url: string }> {
  const port = freePort();
  const child = spawn(["run", "-A", "tools/bench/receiver.ts"], { PORT: String(port) }, root);
  const url = `http://127.0.0.1:${port}`;
  try {
    await waitFor(`${url}/stats`);
  } catch (err) {
    await stop(child);
    throw err;
  }
  return { child, url };
}

/**
 * The V8 flags `deno task start` runs the service with, read from deno.json; `override` (a
 * `--v8-flags=` value) replaces them, to compare heap settings.
 */
export async function startV8Flags(root: string, override?: string): Promise<string[]> {
  if (override !== undefined) return override ? [`--v8-flags=${override}`] : [];
  const tasks = JSON.parse(await Deno.readTextFile(`${root}deno.json`)).tasks;
  return (tasks.start.command as string).split(" ").filter((w) => w.startsWith("--v8-flags="));
}

/**
 * Starts `server/main.ts` of `root` on `port` as `deno task start` would; with `cpuProfDir`, V8
 * writes a CPU profile there when the process stops; `v8Flags` replaces the start task's V8
 * flags; with `inspectPort`, the V8 inspector listens on 127.0.0.1 at that port (for the
 * allocation sampler, tools/bench/allocations.ts). Resolves once /readyz answers.
 */
export async function startServer(
  root: string,
  env: Record<string, string>,
  port: number,
  cpuProfDir?: string,
  v8Flags?: string,
  inspectPort?: number,
): Promise<Deno.ChildProcess> {
  const server = spawn(
    [
      "run",
      "-A",
      ...await startV8Flags(root, v8Flags),
      ...(cpuProfDir ? ["--cpu-prof", `--cpu-prof-dir=${cpuProfDir}`] : []),
      ...(inspectPort ? [`--inspect=127.0.0.1:${inspectPort}`] : []),
      "server/main.ts",
    ],
    { ...env, PORT: String(port) },
    root,
  );
  try {
    await waitFor(`http://127.0.0.1:${port}/readyz`);
  } catch (err) {
    await stop(server);
    throw err;
  }
  return server;
}

/** The form body of a client-credentials token request by the bootstrap client. */
export const TOKEN_BODY =
  `grant_type=client_credentials&client_id=${CLIENT.id}&client_secret=${CLIENT.secret}`;

/** A wrk script requesting client-credentials tokens as the bootstrap client. */
export async function writeTokenScript(tmp: string): Promise<string> {
  const script = `${tmp}/token.lua`;
  await Deno.writeTextFile(
    script,
    `wrk.method = "POST"\nwrk.body = "${TOKEN_BODY}"\n` +
      `wrk.headers["Content-Type"] = "application/x-www-form-urlencoded"\n`,
  );
  return script;
}

/** A wrk script sending `token` as the bearer (the REST reads' requests). */
export async function writeBearerScript(tmp: string, token: string): Promise<string> {
  const script = `${tmp}/bearer.lua`;
  await Deno.writeTextFile(script, `wrk.headers["Authorization"] = "Bearer ${token}"\n`);
  return script;
}

/** Where the bench app calls the receiver at `receiverUrl` back. */
export function benchCallbackUrl(receiverUrl: string): string {
  return `${receiverUrl}/callback`;
}

/** An admin token, and the bench app created with it (calling `receiverUrl` back). */
export async function createBenchApp(
  base: string,
  receiverUrl: string,
): Promise<{ token: string; apiKey: string }> {
  const token = (await (await fetch(`${base}/api/v1/oauth2/token`, {
    method: "POST",
    headers: { "Content-Type": "application/x-www-form-urlencoded" },
    body: TOKEN_BODY,
  })).json()).access_token;
  const app = await (await fetch(`${base}/api/v1/admin/apps`, {
    method: "POST",
    headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json" },
    body: JSON.stringify({
      ...BENCH_APP,
      replayProtection: "required",
      maxAgeSeconds: 3600,
      callbackUrl: benchCallbackUrl(receiverUrl),
    }),
  })).json();
  if (!app.apiKey) throw new Error(`bench app: ${JSON.stringify(app)}`);
  return { token, apiKey: app.apiKey };
}

/** Sets the bench app's callback URL (null: the app has none, so its launches emit no events). */
export async function setBenchCallbackUrl(
  base: string,
  token: string,
  callbackUrl: string | null,
): Promise<void> {
  const res = await fetch(`${base}/api/v1/admin/apps/${BENCH_APP.appName}`, {
    method: "PATCH",
    headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json" },
    body: JSON.stringify({ callbackUrl }),
  });
  if (!res.ok) throw new Error(`bench app's callback URL: ${res.status} ${await res.text()}`);
  await res.body?.cancel();
}

/**
 * VACUUM ANALYZE of the bench database before a measured case, as pgbench does on its tables
 * before each run: without it (and with autovacuum off) each case would run on the previous
 * ones' dead rows and on plans made for tables as small as they were when first queried. Then a
 * checkpoint (`settle`).
 */
export async function maintain(bench: postgres.Sql): Promise<void> {
  await bench`vacuum analyze`;
  await settle(bench);
}

/**
 * A CHECKPOINT: the previous cases' dirty pages are written now, not by the checkpointer while
 * the next case runs. Without it a case (the last TPC-B above all, 0.25 × the first one in a run
 * where an idle TPC-B right after gave 1.6 ×) paid for the writes of the ones before it.
 */
export async function settle(sql: postgres.Sql): Promise<void> {
  await sql`checkpoint`;
}
