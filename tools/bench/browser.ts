/// <reference lib="dom" />
/**
 * The launch as an agent sees it: headless Chromium on a host page with `<portal-launcher
 * target="iframe">` (the host on another site than the portal, its backend signing with
 * createSignHandler: issuedAt and a nonce, replay protection required), timed from the click to
 * the session screen painted in the frame (its first contentful paint, whose only text block at
 * the top is the heading), measured by the browser: the click's time in the host page and the
 * frame's paint time share the browser's clock (performance.timeOrigin + now). While a launch
 * runs, Playwright only waits in the host page for the element's `portal-ready` (or
 * `portal-launch-error`) event: polling the frame for the heading would inject Playwright's
 * script into the new page and compete with its first paint. The heading is checked visible
 * afterwards, and Playwright's own time to the event is reported apart. Each launch opens a fresh
 * host page (not timed) and names a new contact, so every one creates a customer and a session.
 * The signer checks each payload with the portal's dry run (its default) or, with `localCheck`,
 * with the service's schema in the host's process (`@portal-launcher/signer/validate`).
 *
 * The browser is Chromium's headless shell (`chromium-headless-shell`, what Playwright runs for
 * headless by default) or, with `fullBrowser`, the full Chromium the tests use (new headless mode).
 */
import type { Browser } from "playwright-core";
import { createSignHandler } from "../../widget/signer/mod.ts";
import { validateLaunchPayload } from "../../widget/signer/validate.ts";
import { launchFullChromium, launchHeadlessShell } from "../../test/helpers/browser.ts";
import { ensureWidgetBuilt } from "../../test/helpers/widget.ts";
import type { TableRow } from "./wrk.ts";
import { WARM_UP_ROUTE } from "../../server/launch/contract.ts";

/** Where one launch's time went, in milliseconds from the click, as the browser timed it. */
export interface LaunchTiming {
  /** The frame's first contentful paint: the session screen and its heading on screen. */
  painted: number;
  /** The host's /sign answered and the form POST to the portal started. */
  posted: number;
  /** The launch answered (its 303 redirect ended) and the session page was requested. */
  launched: number;
  /** The session page's HTML fully received. */
  received: number;
  /** Playwright saw the element's portal-ready event (its own plumbing included). */
  observed: number;
}

/** Launch timings in launch order, and the p50/p95 of the painted times. */
export interface BrowserResult {
  timings: LaunchTiming[];
  p50: number;
  p95: number;
  /** The median of each phase. */
  median: LaunchTiming;
}

/** The launch parameters of launch `n`: a new contact and case each time. */
function contact(n: string): Record<string, string> {
  return {
    referenceNumber: `CASE-${n}`,
    contactId: `B${n}`,
    contactFirstName: "Bench",
    contactLastName: "Contact",
    contactEmail: `b${n}@bench.example.org`,
    contactPhone: "5550001111",
  };
}

function hostPage(base: string, portal: string, warm: boolean): string {
  const warmUp = warm ? ` portal-url="${portal}/portal"` : "";
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Bench CRM</title>
<script type="module" src="${base}/portal/widget/portal-launcher.js"></script></head><body>
<h1>Case</h1><portal-launcher id="frame" sign-url="/sign" target="iframe"${warmUp}></portal-launcher>
</body></html>`;
}

/** The `q` quantile (0..1) of sorted `values`, nearest rank. */
export function quantile(sorted: number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)];
}

/** How a browser run launches: the signer's check, the warm-up, the browser. */
export interface BrowserVariant {
  /** The signer checks with the schema locally instead of asking the portal's dry run. */
  localCheck: boolean;
  /** The element has `portal-url`: its frame waits on the portal's warm-up page. */
  warm: boolean;
  /** The full Chromium (new headless mode) instead of the headless shell. */
  fullBrowser: boolean;
}

/** Runs `count` launches from Chromium against the service at `base` (admin `token`). */
export async function browserLaunches(
  base: string,
  token: string,
  count: number,
  { localCheck, warm, fullBrowser }: BrowserVariant,
): Promise<BrowserResult> {
  await ensureWidgetBuilt();
  // The portal answers on localhost, the host on 127.0.0.1: a third-party frame, as in a CRM.
  const portal = base.replace("127.0.0.1", "localhost");
  let sign: (req: Request) => Promise<Response> = () =>
    Promise.resolve(new Response("not ready", { status: 503 }));
  const host = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, (req) => {
    if (new URL(req.url).pathname === "/sign") return sign(req);
    return new Response(hostPage(base, portal, warm), { headers: { "Content-Type": "text/html" } });
  });
  const hostOrigin = `http://127.0.0.1:${host.addr.port}`;
  let browser: Browser | undefined;
  try {
    const res = await fetch(`${base}/api/v1/admin/apps`, {
      method: "POST",
      headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json" },
      body: JSON.stringify({
        appName: `bench-browser${localCheck ? "-local" : ""}${warm ? "-warm" : ""}${
          fullBrowser ? "-full" : ""
        }`,
        name: "Bench browser",
        authType: "signed_request",
        replayProtection: "required",
        frameAncestors: [hostOrigin],
      }),
    });
    const app = await res.json();
    if (res.status !== 201) throw new Error(`browser bench app: ${JSON.stringify(app)}`);
    sign = createSignHandler({
      portalUrl: `${portal}/portal`,
      appName: app.appName,
      apiKey: app.apiKey,
      ...(localCheck ? { validate: validateLaunchPayload } : {}),
      user: () => ({
        id: "bench-agent",
        email: "agent@bench.example.com",
        first_name: "Bench",
        last_name: "Agent",
      }),
      allow: Object.keys(contact("x")),
    });
    browser = fullBrowser ? await launchFullChromium() : await launchHeadlessShell();
    const context = await browser.newContext({ viewport: { width: 1100, height: 900 } });
    const timings: LaunchTiming[] = [];
    for (let i = 0; i < count; i++) {
      const page = await context.newPage();
      await page.goto(`${hostOrigin}/`);
      await page.waitForFunction(() => customElements.get("portal-launcher"));
      // With portal-url, the agent clicks once the warm-up page has loaded (the page was open).
      const warmUp = () => page.frames().find((f) => f.url().endsWith(WARM_UP_ROUTE));
      for (let i = 0; warm && !warmUp(); i++) {
        if (i > 500) throw new Error("the warm-up page did not load");
        await page.waitForTimeout(10);
      }
      if (warm) await warmUp()!.waitForLoadState("load");
      await page.evaluate((parameters) => {
        (document.getElementById("frame") as unknown as { parameters: unknown }).parameters =
          parameters;
      }, contact(`${Date.now()}-${i}`));
      // The click's time, and the launch's outcome: the element's events (30 s at most).
      await page.evaluate(() => {
        const w = globalThis as unknown as { clickAt: number; outcome: Promise<string> };
        document.addEventListener("click", () => {
          w.clickAt = performance.timeOrigin + performance.now();
        }, { capture: true, once: true });
        const element = document.getElementById("frame")!;
        w.outcome = new Promise((done) => {
          element.addEventListener("portal-ready", () => done("landed"), { once: true });
          element.addEventListener("portal-launch-error", () => done("refused"), { once: true });
          setTimeout(() => done("no portal-ready event within 30 s"), 30_000);
        });
      });
      const started = performance.now();
      await page.click("#frame button");
      const { outcome, clickAt } = await page.evaluate(async () => {
        const w = globalThis as unknown as { clickAt: number; outcome: Promise<string> };
        return { outcome: await w.outcome, clickAt: w.clickAt };
      });
      const observed = performance.now() - started;
      const alert = page.locator("#frame [role=alert]");
      if (outcome === "refused") throw new Error(`launch refused: ${await alert.innerText()}`);
      if (outcome !== "landed") throw new Error(outcome);
      await page.frameLocator("#frame iframe[part=frame]").locator("h1", { hasText: /Session \d+/ })
        .waitFor({ state: "visible", timeout: 5_000 });
      const frame = page.frames().find((f) => f.url().includes("/portal/sessions/"));
      if (!frame) throw new Error("the session screen's frame was not found");
      // The paint entry may land a moment after the heading is in the DOM.
      await frame.waitForFunction(() => performance.getEntriesByName("first-contentful-paint")[0]);
      const at = await frame.evaluate(() => {
        const o = performance.timeOrigin;
        const nav = performance.getEntriesByType("navigation")[0] as PerformanceNavigationTiming;
        const paint = performance.getEntriesByName("first-contentful-paint")[0];
        return {
          posted: o + nav.redirectStart,
          launched: o + nav.fetchStart,
          received: o + nav.responseEnd,
          painted: o + paint.startTime,
        };
      });
      timings.push({
        painted: at.painted - clickAt,
        posted: at.posted - clickAt,
        launched: at.launched - clickAt,
        received: at.received - clickAt,
        observed,
      });
      await page.close();
    }
    const sorted = (key: keyof LaunchTiming) => timings.map((t) => t[key]).sort((a, b) => a - b);
    const median = Object.fromEntries(
      (["painted", "posted", "launched", "received", "observed"] as const).map((
        k,
      ) => [k, quantile(sorted(k), 0.5)]),
    ) as unknown as LaunchTiming;
    const painted = sorted("painted");
    return { timings, p50: quantile(painted, 0.5), p95: quantile(painted, 0.95), median };
  } finally {
    await browser?.close();
    await host.shutdown();
  }
}

/**
 * The browser cases, `count` launches each: in the headless shell, the element warmed up
 * (portal-url) with the signer asking the dry run, then checking locally; checking locally
 * without portal-url; then warmed up in the full Chromium. A case that cannot run says why.
 */
export async function browserCases(
  base: string,
  token: string,
  count: number,
): Promise<TableRow[]> {
  const cases: [string, BrowserVariant][] = [
    ["headless shell, dry run, portal-url", { localCheck: false, warm: true, fullBrowser: false }],
    ["headless shell, local check, portal-url", {
      localCheck: true,
      warm: true,
      fullBrowser: false,
    }],
    ["headless shell, local check, no portal-url", {
      localCheck: true,
      warm: false,
      fullBrowser: false,
    }],
    ["full Chromium, local check, portal-url", { localCheck: true, warm: true, fullBrowser: true }],
  ];
  const rows: TableRow[] = [];
  for (const [label, variant] of cases) {
    const run = await browserLaunches(base, token, count, variant).catch((err) => err as Error);
    rows.push({
      name: `browser: click → session heading, ${count} launches, ${label}`,
      note: run instanceof Error ? `not measured: ${run.message.split("\n")[0]}` : summary(run),
    });
  }
  return rows;
}

function summary({ p50, p95, median: m }: BrowserResult): string {
  return `painted p50 ${p50.toFixed(0)} ms, p95 ${p95.toFixed(0)} ms ${p95 <= 300 ? "✔" : "✘"} ` +
    `(target p95 ≤ 300 ms); medians from the click: posted ${m.posted.toFixed(0)}, launch ` +
    `answered ${m.launched.toFixed(0)}, page received ${m.received.toFixed(0)}, portal-ready ` +
    `reached Playwright ${m.observed.toFixed(0)}`;
}
