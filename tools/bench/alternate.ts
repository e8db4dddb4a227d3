/**
 * Two variants of a case measured in alternation (A, B, A, B): a shared host's speed drifts
 * within a run, by a third in minutes on some days, and a pair measured one after the other
 * then compares the host's two speeds as much as the variants. Alternated runs see the same
 * drift, and each side's runs are merged into one result.
 */
import { cpuCosts, cpuNotes } from "./load.ts";
import type { WrkResult } from "./wrk.ts";

/**
 * One result of runs of one case: their mean rate, mean median, worst p99 and summed failures;
 * the CPU per request (when noted for every run) weighted by each run's requests.
 */
export function merged(name: string, runs: WrkResult[]): WrkResult {
  const rate = runs.reduce((s, r) => s + r.requestsPerSecond, 0);
  const result: WrkResult = {
    name,
    connections: runs[0].connections,
    requestsPerSecond: rate / runs.length,
    p50Ms: runs.reduce((s, r) => s + r.p50Ms, 0) / runs.length,
    p99Ms: Math.max(...runs.map((r) => r.p99Ms)),
    non2xx: runs.reduce((s, r) => s + r.non2xx, 0),
    errors: runs.reduce((s, r) => s + r.errors, 0),
  };
  const costs = runs.map((r) => cpuCosts.get(r));
  if (rate > 0 && costs.every((c) => c !== undefined)) {
    const weighted = (pick: (c: NonNullable<typeof costs[0]>) => number) =>
      runs.reduce((s, r, i) => s + pick(costs[i]!) * r.requestsPerSecond, 0) / rate;
    const merge = {
      serverMs: weighted((c) => c.serverMs),
      postgresMs: weighted((c) => c.postgresMs),
      machineBusy: weighted((c) => c.machineBusy),
    };
    cpuCosts.set(result, merge);
    cpuNotes.set(
      result,
      `CPU per request: server ${merge.serverMs.toFixed(2)} ms, PostgreSQL ${
        merge.postgresMs.toFixed(2)
      } ms; machine ${(merge.machineBusy * 100).toFixed(0)} % busy; ${runs.length} runs ` +
        `alternated with the other variant`,
    );
  }
  return result;
}

/**
 * Runs `a(k)` and `b(k)` in turn for k = 0 … rounds - 1 (a first), and answers each side's runs
 * merged under its name.
 */
export async function alternated(
  rounds: number,
  a: { name: string; run: (k: number) => Promise<WrkResult> },
  b: { name: string; run: (k: number) => Promise<WrkResult> },
): Promise<[WrkResult, WrkResult]> {
  const runs: [WrkResult[], WrkResult[]] = [[], []];
  for (let k = 0; k < rounds; k++) {
    runs[0].push(await a.run(k));
    runs[1].push(await b.run(k));
  }
  return [merged(a.name, runs[0]), merged(b.name, runs[1])];
}
