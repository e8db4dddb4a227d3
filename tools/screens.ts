/// <reference lib="dom" />
/**
 * `deno task screens`: screenshots of each portal flavor and each admin screen at 1280 and 390 px,
 * viewport-sized (small PNGs), into docs/screens/, from a
 * throwaway service with sample data (test/helpers/page_walk.ts, the pages the design walk
 * checks). Run it after a change to a page and commit the PNGs that changed.
 */
import { launchFullChromium } from "../test/helpers/browser.ts";
import { startWalk, type Viewer } from "../test/helpers/page_walk.ts";
import { ensureWidgetBuilt } from "../test/helpers/widget.ts";

const OUT = new URL("../docs/screens/", import.meta.url).pathname;
const SIZES = [{ width: 1280, height: 800 }, { width: 390, height: 844 }];
const VIEWERS: Viewer[] = ["agent", "admin", "anonymous"];
/** The pages shot: the portal's flavors and the admin screens (the walk has more). */
const SHOT = /^(portal (standard|embedded|seesupport)$|admin )/;

/** A file name from a page's name: `admin /admin/apps/crm` becomes `admin-apps-crm`. */
function fileName(name: string, width: number): string {
  const slug = name.replace(/^admin \/admin\//, "admin-")
    .replace(/[0-9a-f]{8}-[0-9a-f-]{27}/, "path")
    .replace(/[^a-z0-9]+/gi, "-").replace(/^-|-$/g, "").toLowerCase();
  return `${slug}-${width}.png`;
}

if (import.meta.main) {
  await ensureWidgetBuilt();
  await Deno.mkdir(OUT, { recursive: true });
  for (const entry of Deno.readDirSync(OUT)) {
    if (entry.name.endsWith(".png")) await Deno.remove(`${OUT}${entry.name}`);
  }
  const walk = await startWalk();
  const browser = await launchFullChromium();
  let count = 0;
  try {
    for (const size of SIZES) {
      for (const viewer of VIEWERS) {
        const context = await walk.context(browser, viewer, size.width);
        const page = await context.newPage();
        await page.setViewportSize(size);
        for (const p of walk.pages.filter((p) => p.viewer === viewer)) {
          await p.open(page);
          if (!SHOT.test(p.name)) continue;
          await page.screenshot({ path: `${OUT}${fileName(p.name, size.width)}` });
          count++;
        }
        await context.close();
      }
    }
  } finally {
    await browser.close();
    await walk.close();
  }
  console.log(`${count} screenshots in docs/screens/`);
}
