/// <reference lib="dom" />
/**
 * The design walk (issue 35): every page a person sees (test/helpers/page_walk.ts: portal in each
 * flavor, path runner, remote view, sessions list, sign-in and reset, every admin screen, the API
 * reference, every error page, the demo CRM) at 320, 768 and 1280 px. Fails on any page wider than
 * the screen, and on any serious or critical axe-core finding with the WCAG 2.2 AA rules (target
 * size included). One service, one Chromium.
 */
import assert from "node:assert/strict";
import type { BrowserContext, Page } from "playwright-core";
import { seriousViolations, WCAG22 } from "../helpers/axe.ts";
import { launchChromium } from "../helpers/browser.ts";
import { Stalled, tidy, within } from "../helpers/deadline.ts";
import { startWalk, type Viewer, type WalkPage } from "../helpers/page_walk.ts";
import { ensureWidgetBuilt } from "../helpers/widget.ts";

const WIDTHS = [320, 768, 1280];
/** How long one page's opening and checks may take (its tab and context included). */
const STALL_MS = 60_000;
/** How long a tab or context may take to close before it is left behind. */
const CLOSE_MS = 10_000;
const VIEWERS: Viewer[] = ["agent", "admin", "anonymous"];

/** The page's width and, when wider than the screen, the elements that stick out the most. */
async function overflow(page: Page): Promise<{ width: number; culprits: string[] }> {
  return await page.evaluate(() => {
    const client = document.documentElement.clientWidth;
    const width = document.documentElement.scrollWidth;
    if (width <= client) return { width, culprits: [] };
    const culprits = [...document.querySelectorAll("body *")]
      .map((el) => ({ el, right: el.getBoundingClientRect().right }))
      .filter(({ right }) => right > client + 1)
      .sort((a, b) => b.right - a.right)
      .slice(0, 3)
      .map(({ el, right }) =>
        `${el.tagName.toLowerCase()}${el.id ? `#${el.id}` : ""}` +
        `${el.className && typeof el.className === "string" ? `.${el.className}` : ""} ` +
        `(${Math.round(right)} px)`
      );
    return { width, culprits };
  });
}

/** Opens `p` in `page` and checks it: the problems found, and its width at 320 px. */
async function check(p: WalkPage, page: Page, width: number) {
  const found: string[] = [];
  await p.open(page);
  const { width: scroll, culprits } = await overflow(page);
  if (culprits.length) {
    found.push(`${p.name} at ${width} px is ${scroll} px wide: ${culprits.join(", ")}`);
  }
  // axe at the narrowest and widest screens (the middle one lays out like them).
  if (width !== 768) {
    for (const v of await seriousViolations(page, WCAG22)) {
      found.push(`${p.name} at ${width} px: axe ${v}`);
    }
  }
  return { found, scroll };
}

/**
 * `run()`'s result within STALL_MS. A page that never answers (seen rarely in loaded full-suite
 * runs, once wedging the whole CI run), or a Chromium that went away under it, is checked again
 * after `recover(attempt)`: the same checks, never skipped; a third failure fails the test, naming
 * the page. `where()` says what the tab was showing, for the log.
 */
async function retried<T>(
  what: string,
  run: () => Promise<T>,
  recover: (attempt: number) => Promise<void>,
  where: () => string,
  browserGone: () => boolean,
): Promise<T> {
  for (let attempt = 1;; attempt++) {
    try {
      return await within(what, STALL_MS, run());
    } catch (error) {
      const recoverable = error instanceof Stalled || browserGone();
      if (!recoverable || attempt === 3) throw error;
      const why = error instanceof Stalled ? error.message : `${what}: Chromium went away`;
      console.warn(`${new Date().toISOString()} design walk: ${why} (${where()}); trying again`);
      await recover(attempt);
    }
  }
}

Deno.test({
  name: "design walk: no page overflows at 320, 768, 1280 px; no serious axe finding (WCAG 2.2)",
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    await within("building the widget", 300_000, ensureWidgetBuilt());
    const walk = await within("starting the service and its data", 120_000, startWalk());
    let browser = await within("launching Chromium", 120_000, launchChromium());
    const problems: string[] = [];
    const widest: Record<string, number> = {};
    try {
      for (const width of WIDTHS) {
        for (const viewer of VIEWERS) {
          let context: BrowserContext | undefined;
          let page: Page | undefined;
          /**
           * Which attempt owns the tab: an attempt given up on (stalled) may still be running,
           * and must not hand its context, on a browser since closed, to the next attempt.
           */
          let generation = 0;
          /** The tab to check in: opened (with its context) when there is none. */
          const tab = async () => {
            const mine = generation;
            const stale = async (opened: BrowserContext) => {
              if (mine === generation) return false;
              await tidy("closing a stale context", CLOSE_MS, opened.close());
              return true;
            };
            const ctx = context ?? await walk.context(browser, viewer, width);
            if (await stale(ctx)) throw new Error("an attempt given up on");
            context = ctx;
            const opened = page ?? await ctx.newPage();
            if (await stale(ctx)) throw new Error("an attempt given up on");
            return page = opened;
          };
          /** Leaves the tab and context (and with `browserToo`, Chromium) for fresh ones. */
          const discard = async (browserToo: boolean) => {
            generation++;
            if (page) await tidy("closing the tab", CLOSE_MS, page.close());
            if (context) await tidy("closing the context", CLOSE_MS, context.close());
            page = context = undefined;
            if (browserToo || !browser.isConnected()) {
              await browser.close(); // bounded: the process is killed when it does not close
              browser = await within("launching Chromium again", 120_000, launchChromium());
            }
          };
          for (const p of walk.pages.filter((p) => p.viewer === viewer)) {
            const { found, scroll } = await retried(
              `${p.name} at ${width} px as ${viewer}`,
              () => tab().then((page) => check(p, page, width)),
              // A fresh context after the first stall, a fresh Chromium after the second.
              (attempt) => discard(attempt === 2),
              () => `tabs at ${browser.contexts().flatMap((c) => c.pages().map((t) => t.url()))}`,
              () => !browser.isConnected(),
            );
            if (width === 320) widest[p.name] = Math.max(widest[p.name] ?? 0, scroll);
            problems.push(...found);
          }
          await discard(false);
        }
      }
    } finally {
      await browser.close();
      await tidy("stopping the service", 30_000, walk.close());
    }
    console.log("widths at 320 px:", JSON.stringify(widest));
    assert.deepEqual(problems, []);
  },
});
