/**
 * Accessibility audits with axe-core (npm) in Playwright: the engine is injected into the page
 * (and its frames) and run with the WCAG 2.x A/AA rules; the serious and critical violations are
 * answered, each as "rule: target (summary)" for a readable assertion message.
 */
import { createRequire } from "node:module";
import type { Page } from "playwright-core";
import "axe-core"; // makes the package present in node_modules for the path lookup below

const require = createRequire(import.meta.url);
let source: string | undefined;

async function axeSource(): Promise<string> {
  source ??= await Deno.readTextFile(require.resolve("axe-core/axe.min.js"));
  return source;
}

/** The WCAG 2.0-2.1 A/AA rules (the default) and, with WCAG 2.2, target size (2.5.8) too. */
export const WCAG21 = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"];
export const WCAG22 = [...WCAG21, "wcag22aa"];

/** The serious and critical violations of the page as it is now (its frames included). */
export async function seriousViolations(page: Page, tags: string[] = WCAG21): Promise<string[]> {
  const code = await axeSource();
  for (const frame of page.frames()) await frame.evaluate(code).catch(() => {});
  const result = await page.evaluate(async (tags) => {
    const axe = (globalThis as unknown as {
      axe: { run(ctx: unknown, opts: unknown): Promise<{ violations: Violation[] }> };
    }).axe;
    interface Violation {
      id: string;
      impact: string | null;
      nodes: { target: unknown[]; failureSummary?: string }[];
    }
    const r = await axe.run(document, {
      runOnly: { type: "tag", values: tags },
      resultTypes: ["violations"],
    });
    return r.violations.map((v) => ({
      id: v.id,
      impact: v.impact,
      nodes: v.nodes.map((n) => ({ target: JSON.stringify(n.target), summary: n.failureSummary })),
    }));
  }, tags);
  return result.filter((v) => v.impact === "serious" || v.impact === "critical")
    .flatMap((v) =>
      v.nodes.map((n) => `${v.id}: ${n.target} (${n.summary?.split("\n")[1] ?? ""})`)
    );
}
