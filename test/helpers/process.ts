/** The service as a real process (`deno run server/main.ts` with the flags of `deno task start`). */
export const MAIN = new URL("../../server/main.ts", import.meta.url).pathname;
// The permissions `deno task start` grants, read from deno.json so the test runs what users run.
const START = JSON.parse(await Deno.readTextFile(new URL("../../deno.json", import.meta.url)))
  .tasks.start;
const TASK: string = typeof START === "string" ? START : START.command;
export const FLAGS = TASK.split(" ").filter((word) => word.startsWith("--allow-"));

/** The kernel's ephemeral ports (`ip_local_port_range`): where port 0 and outgoing sockets land. */
function ephemeralRange(): [number, number] {
  try {
    const [low, high] = Deno.readTextFileSync("/proc/sys/net/ipv4/ip_local_port_range")
      .trim().split(/\s+/).map(Number);
    if (low > 0 && high >= low) return [low, high];
  } catch { /* not Linux: the IANA range */ }
  return [49152, 65535];
}
const [EPHEMERAL_LOW, EPHEMERAL_HIGH] = ephemeralRange();

/**
 * A loopback TCP port free now, for a process a test starts later. Not a port-0 pick: the kernel
 * hands those same ports to every outgoing connection (the suite's database clients, the parallel
 * test files' sockets), and one of them took such a port between the pick and the child's listen
 * (CI, stop 57). A random port below the ephemeral range is only ever taken by another pick.
 */
export function freePort(): number {
  const low = 10_000;
  const high = EPHEMERAL_LOW > low + 1_000 ? EPHEMERAL_LOW - 1 : 32_767;
  for (let tries = 0; tries < 200; tries++) {
    const port = low + Math.floor(Math.random() * (high - low + 1));
    if (port >= EPHEMERAL_LOW && port <= EPHEMERAL_HIGH) continue;
    try {
      Deno.listen({ hostname: "127.0.0.1", port }).close();
      return port;
    } catch (error) {
      if (!(error instanceof Deno.errors.AddrInUse)) throw error;
    }
  }
  throw new Error(`no free loopback port in ${low}-${high} after 200 tries`);
}

export interface Running {
  process: Deno.ChildProcess;
  output: () => string;
  port: number;
}

/**
 * Collects a child's stdout and stderr and waits until they match `ready`; throws (with the
 * output) when it exits first or `ms` pass. Answers the output so far, as a function.
 */
export async function untilOutput(
  child: Deno.ChildProcess,
  ready: RegExp,
  ms: number,
  what: string,
): Promise<() => string> {
  let text = "";
  const decoder = new TextDecoder();
  const pump = async (stream: ReadableStream<Uint8Array>) => {
    for await (const chunk of stream) text += decoder.decode(chunk);
  };
  pump(child.stdout);
  pump(child.stderr);
  const deadline = Date.now() + ms;
  while (!ready.test(text)) {
    if (Date.now() > deadline) throw new Error(`no ${what} within ${ms / 1000} s:\n${text}`);
    const status = await Promise.race([
      child.status,
      new Promise<null>((r) => setTimeout(() => r(null), 50)),
    ]);
    if (status) throw new Error(`exited with ${status.code}:\n${text}`);
  }
  return () => text;
}

/**
 * Starts `deno run server/main.ts` on a free port (SHUTDOWN_DRAIN_MS 0 unless `env` sets it, so a
 * stop does not wait for load balancers); `args` follow the script as `deno task start` passes them.
 */
export async function startProcess(
  env: Record<string, string>,
  args: string[] = [],
): Promise<Running> {
  const port = Number(env.PORT ?? freePort());
  const process = new Deno.Command(Deno.execPath(), {
    args: ["run", ...FLAGS, MAIN, ...args],
    env: {
      HOME: Deno.env.get("HOME") ?? "/tmp",
      PORT: String(port),
      LOG_LEVEL: "warn",
      SHUTDOWN_DRAIN_MS: "0",
      ...env,
    },
    clearEnv: true,
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const output = await untilOutput(process, /"msg":"listening"|listening on/, 60_000, "start");
  return { process, output, port };
}

/** Stops gracefully (SIGTERM); resolves with the exit code. */
export async function stopProcess(running: Running): Promise<number> {
  running.process.kill("SIGTERM");
  return (await running.process.status).code;
}

/** The start record (`"msg":"listening"`) of a process's output, parsed. */
// deno-lint-ignore no-explicit-any
export function startRecordOf(output: string): Record<string, any> {
  const line = output.split("\n").find((l) => l.includes('"msg":"listening"'));
  if (!line) throw new Error(`no start record in:\n${output}`);
  return JSON.parse(line);
}
