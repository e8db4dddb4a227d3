/** Child processes of the benchmark: tools it needs, ports, starting, waiting, stopping. */
import { parsePeakRssMb, parseRssPartsMb } from "./system.ts";

/** True when `command` runs (exit code 0 or 1 to --version). */
export async function have(command: string, args = ["--version"]): Promise<boolean> {
  try {
    const out = await new Deno.Command(command, { args, stdout: "null", stderr: "null" }).output();
    return out.code === 0 || out.code === 1;
  } catch {
    return false;
  }
}

/** Exits with how to install the first of `tools` ([command, how to install it]) not found. */
export async function requireTools(tools: [string, string][]): Promise<void> {
  for (const [tool, hint] of tools) {
    if (await have(tool)) continue;
    console.error(`${tool} not found. Install it: ${hint}`);
    Deno.exit(1);
  }
}

/** A free TCP port on 127.0.0.1. */
export function freePort(): number {
  const l = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (l.addr as Deno.NetAddr).port;
  l.close();
  return port;
}

/** Waits until `url` answers 2xx (60 s at most). */
export async function waitFor(url: string): Promise<void> {
  for (let i = 0; i < 600; i++) {
    try {
      const res = await fetch(url);
      await res.body?.cancel();
      if (res.ok) return;
    } catch { /* not up yet */ }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${url} did not come up`);
}

/** Runs `deno <args>` in `cwd` with `env`, its output discarded (errors shown). */
export function spawn(
  args: string[],
  env: Record<string, string>,
  cwd: string,
): Deno.ChildProcess {
  return new Deno.Command(Deno.execPath(), {
    args,
    env,
    cwd,
    stdout: "null",
    stderr: "inherit",
  })
    .spawn();
}

/** SIGTERM, then SIGKILL when the process is still there after 5 s. */
export async function stop(child: Deno.ChildProcess): Promise<void> {
  try {
    child.kill("SIGTERM");
  } catch {
    return; // already gone
  }
  const timer = setTimeout(() => {
    try {
      child.kill("SIGKILL");
    } catch { /* gone meanwhile */ }
  }, 5000);
  await child.status;
  clearTimeout(timer);
}

/** Peak resident memory (VmHWM) of a running child, in MB. */
export async function peakRss(child: Deno.ChildProcess): Promise<number> {
  return parsePeakRssMb(await Deno.readTextFile(`/proc/${child.pid}/status`));
}

/**
 * A running child's memory in MB, from one read: its peak (VmHWM), and what is resident now,
 * mapped from files (code) and anonymous.
 */
export async function residentMemory(
  child: Deno.ChildProcess,
): Promise<{ peak: number; file: number; anon: number }> {
  const status = await Deno.readTextFile(`/proc/${child.pid}/status`);
  return { peak: parsePeakRssMb(status), ...parseRssPartsMb(status) };
}

/** The sum of the peak resident memory of a running child and of its own children, in MB. */
export async function peakRssTree(child: Deno.ChildProcess): Promise<number> {
  let sum = 0;
  for (const pid of await treePids(child)) {
    sum += parsePeakRssMb(await Deno.readTextFile(`/proc/${pid}/status`));
  }
  return sum;
}

/** The pids of a running child and of its own children (e.g. `deno task serve`'s processes). */
export async function treePids(child: Deno.ChildProcess): Promise<number[]> {
  const pids = [child.pid];
  for await (const task of Deno.readDir(`/proc/${child.pid}/task`)) {
    const text = await Deno.readTextFile(`/proc/${child.pid}/task/${task.name}/children`);
    pids.push(...text.split(" ").filter(Boolean).map(Number));
  }
  return pids;
}
