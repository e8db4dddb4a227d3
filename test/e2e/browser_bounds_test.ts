/// <reference lib="dom" />
/**
 * The bounds on a test's Chromium (test/helpers/browser.ts `bounded`) and on a test's steps
 * (test/helpers/deadline.ts): a wedged browser or step fails its test instead of hanging the suite.
 */
import assert from "node:assert/strict";
import { browserPid, chromiumPath, launchBounded } from "../helpers/browser.ts";
import { Stalled, tidy, within } from "../helpers/deadline.ts";

/** The tests' Chromium, bounded with short limits, as the tests below need. */
async function shortBounded(limits: { lifetimeMs?: number; closeMs?: number }) {
  return await launchBounded(await chromiumPath(), [], limits);
}

/** A process's state letter (/proc/<pid>/stat), or "gone". */
function state(pid: number): string {
  try {
    return Deno.readTextFileSync(`/proc/${pid}/stat`).split(") ")[1][0];
  } catch {
    return "gone";
  }
}

/** Resolves once the process `pid` is dead (exited or a zombie). */
async function dead(pid: number) {
  while (!["gone", "Z", "X"].includes(state(pid))) await new Promise((r) => setTimeout(r, 20));
}

Deno.test("deadline: within answers the result, or a Stalled error naming the step", async () => {
  assert.equal(await within("quick step", 1_000, Promise.resolve(7)), 7);
  const error = await within("slow step", 50, new Promise(() => {})).catch((e) => e);
  assert.ok(error instanceof Stalled);
  assert.equal(error.message, "slow step: no answer within 0.05 s");
  await assert.rejects(within("failing step", 1_000, Promise.reject(new Error("no"))), /no/);
  assert.equal(await tidy("quick clean-up", 1_000, Promise.resolve()), true);
  assert.equal(await tidy("slow clean-up", 50, new Promise(() => {})), false);
});

Deno.test({
  name: "bounded Chromium: close() kills a browser that does not answer",
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const browser = await shortBounded({ closeMs: 1_000 });
    const pid = await browserPid(browser);
    assert.ok(pid, "Chromium names its browser process");
    Deno.kill(pid, "SIGSTOP"); // a browser that never answers
    const started = performance.now();
    await within("close of a stopped browser", 20_000, browser.close());
    assert.equal(browser.isConnected(), false);
    assert.ok(performance.now() - started < 10_000, "closed within the bound, not hung");
    if (Deno.build.os === "linux") {
      // The kill is delivered asynchronously: wait (bounded) for the process to be dead.
      await within("the killed process's end", 5_000, dead(pid));
    }
  },
});

Deno.test({
  name: "bounded Chromium: past its lifetime it is killed, and a call waiting on it rejects",
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const browser = await shortBounded({ lifetimeMs: 5_000 });
    // A renderer that never answers: the evaluation only ends when the browser does. (On a loaded
    // machine the kill may come while the tab is still opening: then the opening is the call that
    // rejects.)
    const wedged = browser.newPage().then((page) => page.evaluate(() => new Promise(() => {})));
    await assert.rejects(within("the wedged evaluation", 30_000, wedged), (e: Error) => {
      assert.ok(!(e instanceof Stalled), "rejected by the kill, not by the test's own deadline");
      return true;
    });
    assert.equal(browser.isConnected(), false);
    await browser.close();
  },
});
