/// <reference lib="dom" />
/**
 * The design walk (issue 35): every page a person sees (test/helpers/page_walk.ts: portal in each
 * flavor, path runner, remote view, sessions list, sign-in and reset, every admin screen, the API
 * reference, every error page, the demo CRM) at 320, 768 and 1280 px. Fails on any page wider than
 * the screen, and on any serious or critical axe-core finding with the WCAG 2.2 AA rules (target
 * size included). One service, one Chromium.
 */
import assert from "node:assert/strict";
import type { Page } from "playwright-core";
import { seriousViolations, WCAG22 } from "../helpers/axe.ts";
import { launchChromium } from "../helpers/browser.ts";
import { startWalk, type Viewer } from "../helpers/page_walk.ts";
import { ensureWidgetBuilt } from "../helpers/widget.ts";

const WIDTHS = [320, 768, 1280];
/** How long one page's opening and checks may take. */
const STALL_MS = 60_000;
const STALLED = Symbol("stalled");

/** `work`'s result, or STALLED when it has not settled within `ms`. */
async function settled<T>(work: Promise<T>, ms: number): Promise<T | typeof STALLED> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<typeof STALLED>((r) => timer = setTimeout(() => r(STALLED), ms));
  try {
    return await Promise.race([work, late]);
  } finally {
    clearTimeout(timer);
  }
}
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

Deno.test({
  name: "design walk: no page overflows at 320, 768, 1280 px; no serious axe finding (WCAG 2.2)",
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    await ensureWidgetBuilt();
    const walk = await startWalk();
    const browser = await launchChromium();
    const problems: string[] = [];
    const widest: Record<string, number> = {};
    try {
      for (const width of WIDTHS) {
        for (const viewer of VIEWERS) {
          const context = await walk.context(browser, viewer, width);
          let page = await context.newPage();
          for (const p of walk.pages.filter((p) => p.viewer === viewer)) {
            /** Opens the page and checks it; answers the problems found. */
            const check = async (): Promise<string[]> => {
              const found: string[] = [];
              await p.open(page);
              const { width: scroll, culprits } = await overflow(page);
              widest[p.name] = Math.max(widest[p.name] ?? 0, width === 320 ? scroll : 0);
              if (culprits.length) {
                found.push(`${p.name} at ${width} px is ${scroll} px wide: ${culprits.join(", ")}`);
              }
              // axe at the narrowest and widest screens (the middle one lays out like them).
              if (width !== 768) {
                for (const v of await seriousViolations(page, WCAG22)) {
                  found.push(`${p.name} at ${width} px: axe ${v}`);
                }
              }
              return found;
            };
            // A page that never answers (seen rarely in loaded full-suite runs, not yet traced)
            // is reported and checked again in a fresh tab: the same checks, never skipped.
            const first = await settled(check(), STALL_MS);
            if (first === STALLED) {
              console.warn(`design walk: ${p.name} at ${width} px stalled; checking it again`);
              await page.close().catch(() => {});
              page = await context.newPage();
              problems.push(
                ...await settled(check(), STALL_MS).then((again) => {
                  if (again === STALLED) throw new Error(`${p.name} at ${width} px stalled twice`);
                  return again;
                }),
              );
            } else problems.push(...first);
          }
          await context.close();
        }
      }
    } finally {
      await browser.close();
      await walk.close();
    }
    console.log("widths at 320 px:", JSON.stringify(widest));
    assert.deepEqual(problems, []);
  },
});
