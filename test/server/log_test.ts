/** The logger's level: what `logs` answers is what gets written. */
import assert from "node:assert/strict";
import { log, logs, setLogLevel } from "../../server/log.ts";

Deno.test("log: logs(level) says whether a record of that level is written", () => {
  const written: string[] = [];
  const { log: out, error: err } = console;
  console.log = (line: string) => written.push(line);
  console.error = (line: string) => written.push(line);
  try {
    const levels = ["debug", "info", "warn", "error"] as const;
    for (const threshold of [...levels, "silent"] as const) {
      setLogLevel(threshold);
      for (const level of levels) {
        written.length = 0;
        log[level]("probe", { level });
        assert.equal(written.length === 1, logs(level), `${level} at LOG_LEVEL=${threshold}`);
      }
    }
    setLogLevel("warn");
    assert.deepEqual(levels.map(logs), [false, false, true, true]);
  } finally {
    console.log = out;
    console.error = err;
    setLogLevel("info");
  }
});
