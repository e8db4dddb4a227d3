/// <reference lib="dom" />
/**
 * Screen sharing, click to first frame: two Chromium processes (agent, customer) on one service.
 * Each run launches the agent into the remote view (a new case: a new session and invitation),
 * opens the join link in the customer's browser, ticks consent, then times the customer's click
 * on Share (a capturing click listener in the customer's page, clicked once both pages are
 * connected peer to peer, as they are while a customer reads the page) to the first frame of the shared
 * screen presented in the agent's `<video>` (`requestVideoFrameCallback`; its `resize` event, the
 * video getting a size, if that comes first). Both times are `performance.timeOrigin +
 * performance.now()` taken in the pages: one machine, one clock. Candidates are host ones on
 * loopback (the service runs with REMOTE_ICE_ADDRESSES=127.0.0.1).
 */
import { SIGNED_REQUEST_FIELD } from "../../server/launch/contract.ts";
import type { Browser, Page } from "playwright-core";
import { customerShares, launchWebRtcChromium } from "../../test/helpers/remote.ts";
import { signLaunch, type TestApp } from "../../test/helpers/launch.ts";
import { launchPayload } from "../../test/helpers/payload.ts";
import { quantile } from "./browser.ts";

/** The runs' click-to-first-frame times (ms, in run order) and their p50/p95. */
export interface FirstFrameResult {
  times: number[];
  p50: number;
  p95: number;
  /** Runs whose first frame was seen by `resize` before requestVideoFrameCallback fired. */
  byResize: number;
  /** Runs that failed (counted as infinitely slow), each with what the pages showed. */
  failures: string[];
}

function sessionOf(agent: Page): number {
  return Number(new URL(agent.url()).pathname.split("/")[3]);
}

/** What a page shows of its connection: `data-rtc` and the state line. */
async function stateOf(page: Page): Promise<string> {
  return await page.evaluate(() =>
    `${document.body.dataset.rtc ?? "-"} "${document.getElementById("state")?.textContent ?? ""}"`
  ).catch((err) => String(err).split("\n")[0]);
}

/** Launches agent `n` into the remote view of a new case; answers the customer's join link. */
async function landAgent(page: Page, base: string, app: TestApp, n: string): Promise<string> {
  const signed = await signLaunch(
    launchPayload({ paths: { search: [], remote: true }, referenceNumber: `RB-${n}` }, {
      id: `rbench-${n}`,
      email: `rbench-${n}@bench.example.com`,
    }),
    app.apiKey,
  );
  await page.goto(`${base}/healthz`);
  await page.setContent(
    `<form method="post" action="${base}/portal/api/auth/app/${app.appName}">` +
      `<input name="${SIGNED_REQUEST_FIELD}" value="${signed}"></form>`,
  );
  await Promise.all([
    page.waitForURL(/\/portal\/sessions\/\d+\/remote/),
    page.evaluate(() => document.forms[0].submit()),
  ]);
  await page.waitForSelector("[data-testid=remote-invite]");
  return await page.inputValue("#join-url");
}

/** Times `runs` shares against the service at `base` (admin `token`). */
export async function firstFrames(
  base: string,
  token: string,
  runs: number,
  diagnose: (sessionId: number) => Promise<string> = () => Promise.resolve(""),
): Promise<FirstFrameResult> {
  const res = await fetch(`${base}/api/v1/admin/apps`, {
    method: "POST",
    headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json" },
    body: JSON.stringify({ appName: "rbench", name: "Remote bench", authType: "signed_request" }),
  });
  const app = await res.json();
  if (res.status !== 201) throw new Error(`remote bench app: ${JSON.stringify(app)}`);
  const browsers: Browser[] = [];
  try {
    const [agentBrowser, customerBrowser] = await Promise.all([
      launchWebRtcChromium(),
      launchWebRtcChromium(),
    ]);
    browsers.push(agentBrowser, customerBrowser);
    const agents = await agentBrowser.newContext({ viewport: { width: 1280, height: 1000 } });
    const customers = await customerBrowser.newContext({ viewport: { width: 1280, height: 720 } });
    const times: number[] = [];
    let byResize = 0;
    const failures: string[] = [];
    const stamp = Date.now();
    for (let i = 0; i < runs; i++) {
      const agent = await agents.newPage();
      const customer = await customers.newPage();
      const joinUrl = await landAgent(agent, base, app, `${stamp}-${i}`);
      await customer.goto(joinUrl);
      const connected = await customer.waitForFunction(
        () => document.body.dataset.rtc === "connected",
        undefined,
        { timeout: 15_000 },
      ).then(() => true, () => false);
      if (!connected) {
        failures.push(`run ${i + 1}: not connected within 15 s (customer ${await stateOf(
          customer,
        )}, agent ${await stateOf(agent)}; ${await diagnose(sessionOf(agent))})`);
        times.push(Infinity);
        await customer.close();
        await agent.close();
        continue;
      }
      // The agent's page waits for the first frame; the customer's records its click.
      await agent.evaluate(() => {
        const w = globalThis as unknown as { firstFrame: Promise<[number, string] | null> };
        const v = document.querySelector("[data-testid=screen]") as HTMLVideoElement;
        const now = () => performance.timeOrigin + performance.now();
        w.firstFrame = new Promise((done) => {
          v.requestVideoFrameCallback(() => done([now(), "frame"]));
          v.addEventListener("resize", () => {
            if (v.videoWidth > 0) done([now(), "resize"]);
          });
          setTimeout(() => done(null), 30_000);
        });
      });
      await customer.evaluate(() => {
        document.addEventListener("click", () => {
          (globalThis as unknown as { clickAt: number }).clickAt = performance.timeOrigin +
            performance.now();
        }, { capture: true, once: true });
      });
      await customerShares(customer);
      const seen = await agent.evaluate(() =>
        (globalThis as unknown as { firstFrame: Promise<[number, string] | null> }).firstFrame
      );
      const clickAt = await customer.evaluate(() =>
        (globalThis as unknown as { clickAt: number }).clickAt
      );
      if (seen) times.push(seen[0] - clickAt);
      else {
        failures.push(`run ${i + 1}: no frame within 30 s (customer ${await stateOf(
          customer,
        )}, agent ${await stateOf(agent)}; ${await diagnose(sessionOf(agent))})`);
        times.push(Infinity);
      }
      if (seen?.[1] === "resize") byResize++;
      await customer.close();
      await agent.close();
    }
    const sorted = [...times].sort((a, b) => a - b);
    return {
      times,
      p50: quantile(sorted, 0.5),
      p95: quantile(sorted, 0.95),
      byResize,
      failures,
    };
  } finally {
    for (const b of browsers) await b.close().catch(() => {});
  }
}
