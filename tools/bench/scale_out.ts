/**
 * Scale-out on one machine: three server/main.ts processes (`deno task serve --processes 3`)
 * behind PgBouncer in transaction mode (DATABASE_PREPARE=false, as docs/operations.md#pgbouncer
 * says), PgBouncer holding as many PostgreSQL connections as one process's pool direct.
 */
import { freePort, spawn, stop, waitFor } from "./processes.ts";

/** Debian installs it in /usr/sbin, which a non-root PATH may lack. */
function pgbouncerPath(): string {
  try {
    return Deno.statSync("/usr/sbin/pgbouncer").isFile ? "/usr/sbin/pgbouncer" : "pgbouncer";
  } catch {
    return "pgbouncer";
  }
}

/** The three processes behind PgBouncer, while they run. */
export interface ScaledOut {
  processes: Deno.ChildProcess;
  base: string;
  stop(): Promise<void>;
}

/** Starts PgBouncer in front of `databaseUrl`, then `processes` servers through it. */
export async function startScaledOut(
  root: string,
  env: Record<string, string>,
  databaseUrl: string,
  processes = 3,
): Promise<ScaledOut> {
  const target = new URL(databaseUrl);
  const poolSize = env.DATABASE_POOL_SIZE ?? "10";
  const dir = await Deno.makeTempDir({ prefix: "pl-bench-pgbouncer-" });
  await Deno.chmod(dir, 0o755);
  const bouncerPort = freePort();
  const ini = `${dir}/pgbouncer.ini`;
  await Deno.writeTextFile(
    ini,
    [
      "[databases]",
      `* = host=${target.hostname} port=${target.port || 5432} user=${
        decodeURIComponent(target.username) || "postgres"
      }`,
      "[pgbouncer]",
      "listen_addr = 127.0.0.1",
      `listen_port = ${bouncerPort}`,
      "unix_socket_dir =",
      "auth_type = any",
      "pool_mode = transaction",
      // As many PostgreSQL connections as one process has direct (DATABASE_POOL_SIZE).
      `default_pool_size = ${poolSize}`,
      "max_client_conn = 500",
      "ignore_startup_parameters = statement_timeout",
    ].join("\n") + "\n",
  );
  await Deno.chmod(ini, 0o644);
  // PgBouncer refuses to run as root: it is told to switch to the postgres account then.
  const args = Deno.uid() === 0 ? ["-u", "postgres", ini] : [ini];
  const bouncer = new Deno.Command(pgbouncerPath(), { args, stdout: "null", stderr: "null" })
    .spawn();
  const url = new URL(databaseUrl);
  url.hostname = "127.0.0.1";
  url.port = String(bouncerPort);
  const port = freePort();
  const cleanup = async (child?: Deno.ChildProcess) => {
    if (child) await stop(child);
    await stop(bouncer);
    await Deno.remove(dir, { recursive: true });
  };
  for (let i = 0;; i++) {
    try {
      (await Deno.connect({ hostname: "127.0.0.1", port: bouncerPort })).close();
      break;
    } catch (err) {
      if (i === 100) {
        await cleanup();
        throw new Error(`pgbouncer did not listen: ${err}`);
      }
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  const child = spawn(
    [
      "run",
      "-A",
      "server/serve.ts",
      "--host",
      "127.0.0.1",
      "--port",
      String(port),
      "--processes",
      String(processes),
    ],
    { ...env, DATABASE_URL: url.href, DATABASE_PREPARE: "false" },
    root,
  );
  const base = `http://127.0.0.1:${port}`;
  try {
    await waitFor(`${base}/readyz`);
  } catch (err) {
    await cleanup(child);
    throw err;
  }
  return { processes: child, base, stop: () => cleanup(child) };
}
