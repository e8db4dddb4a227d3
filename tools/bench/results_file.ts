/** The bench's output: the run's header, table, notes and verdict, printed and written to a file. */
import { type TableRow } from "./wrk.ts";
import { renderRows } from "./wrk.ts";

/** What the header says about the run. */
export interface RunContext {
  quick: boolean;
  seconds: number;
  postgresVersion: string;
  data: { agents: number; customers: number; sessions: number };
  launchesPerRun: number;
}

/**
 * Prints the run's header, table, notes and verdict, and writes them to
 * `<root>tools/bench/results/<date>.md` (`<date>-quick.md` for a quick run, which never
 * overwrites the day's full run). Answers the file's path, relative to `root`.
 */
export async function writeResults(
  root: string,
  run: RunContext,
  rows: TableRow[],
  notes: string[],
  verdict: string[],
): Promise<string> {
  const table = renderRows(rows);
  const cpu = (await Deno.readTextFile("/proc/cpuinfo").catch(() => ""))
    .match(/model name\s*:\s*(.*)/)?.[1] ?? "unknown CPU";
  const header =
    `Machine: ${navigator.hardwareConcurrency} cores, ${cpu}; Deno ${Deno.version.deno}; ` +
    `PostgreSQL ${run.postgresVersion}; wrk -t2 and pgbench -j2, ${run.seconds} s per case; ` +
    `server, PostgreSQL and load generator on the same machine. Data: ${run.data.agents} ` +
    `agents, ${run.data.customers} customers, ${run.data.sessions} sessions; ` +
    `${run.launchesPerRun} distinct single-use launches per launch run (replay protection ` +
    `required, callbacks to a local receiver; half new sessions, half existing; 10% new ` +
    `agents, 20% new customers).`;
  const verdictText = `Verdict (issue 37 and 36 targets):\n\n${
    verdict.map((l) => `    ${l}`).join("\n")
  }`;
  console.log(`\n${header}\n\n${table}\n\n${notes.join("\n")}\n\n${verdictText}`);
  const date = new Date().toISOString().slice(0, 10) + (run.quick ? "-quick" : "");
  const path = `tools/bench/results/${date}.md`;
  await Deno.mkdir(`${root}tools/bench/results`, { recursive: true });
  await Deno.writeTextFile(
    `${root}${path}`,
    `# Benchmark ${date}${run.quick ? " (quick)" : ""}\n\n${header}\n\n${table}\n\n${
      notes.join("\n")
    }\n\n${verdictText}\n`,
  );
  console.log(`\nwritten to ${path}`);
  return path;
}
