/// <reference lib="dom" />
/**
 * Embedding in Chromium, host on http://127.0.0.1 and portal on http://localhost (two sites): the
 * iframe fills the element, autoresize follows the portal page, ready and session messages reach
 * the launcher that opened the portal and never the other one on the page, blocked cookies in
 * the frame end in the element's "Open in a new tab" fallback, and the host API (launch(),
 * close(), status) works from the keyboard and from script. One service, host and browser for
 * the file.
 */
import assert from "node:assert/strict";
import type { Browser, Frame, Page } from "playwright-core";
import { createSignHandler } from "../../widget/signer/mod.ts";
import { launchChromium, launchWithFramedCookiesBlocked, OUTPUT_DIR } from "../helpers/browser.ts";
import { seriousViolations } from "../helpers/axe.ts";
import { pglite } from "../helpers/db.ts";
import { type HttpTestService, startHttpService } from "../helpers/http_service.ts";
import { createTestApp } from "../helpers/launch.ts";
import { sharedFixture } from "../helpers/shared.ts";
import { ensureWidgetBuilt } from "../helpers/widget.ts";

const opts = { sanitizeOps: false, sanitizeResources: false };

const CONTACT = {
  referenceNumber: "CASE7",
  contactId: "C7",
  contactFirstName: "Ada",
  contactLastName: "Byron",
  contactEmail: "ada.byron@example.org",
  contactPhone: "5550001111",
};

interface Fixture {
  svc: HttpTestService;
  hostOrigin: string;
  browser: Browser;
  close(): Promise<void>;
}

const fixture = sharedFixture<Fixture>(async () => {
  await ensureWidgetBuilt();
  const svc = await startHttpService(pglite, {}, "localhost");
  let sign: (req: Request) => Promise<Response> = () =>
    Promise.resolve(new Response("starting", { status: 503 }));
  const host = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, (req) => {
    const url = new URL(req.url);
    if (url.pathname === "/sign") return sign(req);
    return new Response(hostPage(svc.base), { headers: { "Content-Type": "text/html" } });
  });
  const hostOrigin = `http://127.0.0.1:${host.addr.port}`;
  const app = await createTestApp(svc, await svc.adminToken(), "crm", {
    frameAncestors: [hostOrigin],
  });
  sign = createSignHandler({
    portalUrl: `${svc.base}/portal`,
    appName: "crm",
    apiKey: app.apiKey,
    user: () => ({ id: "agent9", email: "kay@example.com", first_name: "Kay", last_name: "Lee" }),
    allow: ["target", ...Object.keys(CONTACT)],
    validate: "none",
  });
  const browser = await launchChromium();
  return {
    svc,
    hostOrigin,
    browser,
    async close() {
      await browser.close();
      await host.shutdown();
      await svc.close();
    },
  };
}, (f) => f.close());

/** The host page: two iframe launchers (autoresize), a tab and a self launcher; events recorded. */
function hostPage(portal: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Mock CRM</title>
<script type="module" src="${portal}/portal/widget/portal-launcher.js"></script>
<script>
  globalThis.seen = [];
  for (const type of ["portal-ready", "portal-session-change", "portal-launch-error"]) {
    document.addEventListener(type, (e) => seen.push({ type, id: e.target.id, detail: e.detail }));
  }
</script></head><body><main>
<h1>Case CASE7</h1>
<portal-launcher id="a" sign-url="/sign" target="iframe" autoresize label="Open A"
  style="--portal-launcher-frame-height: 300px; --portal-launcher-frame-min-height: 150px"></portal-launcher>
<portal-launcher id="b" sign-url="/sign" target="iframe" autoresize label="Open B"></portal-launcher>
<portal-launcher id="t" sign-url="/sign" label="Open in a tab"></portal-launcher>
<portal-launcher id="s" sign-url="/sign" target="self" label="Open here"></portal-launcher>
</main></body></html>`;
}

async function openHost(page: Page, f: Fixture, flavor = "embedded"): Promise<void> {
  await page.goto(`${f.hostOrigin}/`);
  await page.waitForFunction(() => customElements.get("portal-launcher"));
  await page.evaluate(([params]) => {
    for (const el of document.querySelectorAll("portal-launcher")) {
      (el as unknown as { parameters: unknown }).parameters = params;
    }
  }, [{ ...CONTACT, target: flavor }] as const);
}

/** A new 900 × 800 page on the host, its elements given the contact (openHost). */
async function openHostPage(f: Fixture): Promise<Page> {
  const page = await f.browser.newPage({ viewport: { width: 900, height: 800 } });
  await openHost(page, f);
  return page;
}

type Seen = { type: string; id: string; detail: Record<string, unknown> }[];
const seen = (page: Page) => page.evaluate(() => (globalThis as unknown as { seen: Seen }).seen);

/** The recorded events of `type`, oldest first. */
const seenOf = async (page: Page, type: string) =>
  (await seen(page)).filter((e) => e.type === type);

/** Waits until at least `count` events of `type` were recorded. */
const waitSeen = (page: Page, type: string, count = 1) =>
  page.waitForFunction(
    ([t, n]) =>
      (globalThis as unknown as { seen: Seen }).seen.filter((e) => e.type === t).length >= n,
    [type, count] as const,
  );

/**
 * Waits until launcher `id`'s frame is as high as the portal page in it (`portal`) plus its 2 px
 * of border, and answers the page's height. Both are read again at every poll: the page is in
 * another document, and a height read once can be passed while the page settles. Fails after
 * 30 s with both heights.
 */
async function waitFrameFits(page: Page, id: string, portal: Frame): Promise<number> {
  const deadline = Date.now() + 30_000;
  let frame = 0;
  let content = 0;
  while (Date.now() < deadline) {
    frame = await page.evaluate(
      (id) =>
        document.getElementById(id)!.shadowRoot!.querySelector("iframe")!.getBoundingClientRect()
          .height,
      id,
    );
    content = await portal.evaluate(() =>
      Math.ceil(document.documentElement.getBoundingClientRect().height)
    );
    if (frame === content + 2) return content;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(
    `launcher ${id}'s frame stayed ${frame} px high for a portal page of ${content} px (+ 2 px)`,
  );
}

Deno.test(
  "embedding: the iframe fills the element and autoresize follows the portal page",
  opts,
  async () => {
    const f = await fixture();
    const page = await openHostPage(f);
    await page.click("#a button");
    const frame = page.frameLocator("#a iframe");
    await frame.locator("main[data-layout=embedded] h1").waitFor();
    const widths = await page.evaluate(() => {
      const el = document.getElementById("a")!;
      const iframe = el.shadowRoot!.querySelector("iframe")!;
      return [el.getBoundingClientRect().width, iframe.getBoundingClientRect().width];
    });
    assert.ok(widths[0] > 800, `the element is a block as wide as the page: ${widths[0]}`);
    assert.equal(widths[1], widths[0], "the frame is as wide as the element");
    const frameHeight = () =>
      page.evaluate(() =>
        document.getElementById("a")!.shadowRoot!.querySelector("iframe")!.getBoundingClientRect()
          .height
      );
    const portalFrame = page.frames().find((fr) => fr.url().includes("/portal/sessions/"))!;
    // The frame takes the page's height (its border adds 2 px).
    await waitFrameFits(page, "a", portalFrame);
    const before = await frameHeight();
    // The path list grows by 30 entries: the frame follows.
    await portalFrame.evaluate(() => {
      const list = document.querySelector("main ul") ?? document.querySelector("main")!;
      for (let i = 0; i < 30; i++) {
        const li = document.createElement("li");
        li.textContent = `Extra path ${i}`;
        list.append(li);
      }
    });
    const grown = await waitFrameFits(page, "a", portalFrame);
    assert.ok(grown > before + 300, `content grew: ${before} -> ${grown}`);
    await page.screenshot({ path: `${OUTPUT_DIR}embedding-autoresize.png`, fullPage: true });
    await page.close();
  },
);

Deno.test(
  "embedding: ready and session messages reach their own launcher, never the other",
  opts,
  async () => {
    const f = await fixture();
    const page = await openHostPage(f);
    await page.click("#a button");
    await waitSeen(page, "portal-ready");
    await page.click("#b button");
    await waitSeen(page, "portal-ready", 2);
    const ready = await seenOf(page, "portal-ready");
    assert.deepEqual(ready.map((e) => e.id), ["a", "b"], "one ready per launcher");
    assert.equal(ready[0].detail.flavor, "embedded");
    assert.equal(typeof ready[0].detail.sessionId, "number");
    assert.equal(typeof ready[0].detail.launchId, "number");
    assert.notEqual(ready[0].detail.launchId, ready[1].detail.launchId);
    // Both frames share the browser's one portal cookie for this host site: B's launch is now
    // the login. The agent closes the session in frame B: only B reports it.
    const frameB = page.frameLocator("#b iframe");
    await frameB.locator("[data-testid=status-switch]").click();
    await waitSeen(page, "portal-session-change");
    const changes = await seenOf(page, "portal-session-change");
    assert.deepEqual(changes.map((e) => [e.id, e.detail.event]), [["b", "closed"]]);
    assert.equal(changes[0].detail.sessionId, ready[1].detail.sessionId);
    // Reopening reports "reopened"; the bridge drops ?change= so a reload announces nothing.
    await frameB.locator("[data-testid=status-switch]").click();
    await waitSeen(page, "portal-session-change", 2);
    const last = (await seenOf(page, "portal-session-change")).at(-1)!;
    assert.deepEqual([last.id, last.detail.event], ["b", "reopened"]);
    const portalFrame = page.frames().find((fr) =>
      fr.url().includes(`launch=${ready[1].detail.launchId}`)
    )!;
    await portalFrame.waitForFunction(() => !location.search.includes("change="));
    // A forged message from the host page itself (wrong origin) is ignored. (Every load
    // of the session screen announces ready: after each change, B's screen did it again.)
    const readyCount = (await seenOf(page, "portal-ready")).length;
    await page.evaluate(() =>
      postMessage({ type: "portal-launcher:ready", version: 1, sessionId: 1, flavor: "x" }, "*")
    );
    await page.evaluate(() => new Promise((r) => setTimeout(r, 0)));
    assert.equal((await seenOf(page, "portal-ready")).length, readyCount);
    // close() removes the frame and returns to idle.
    await page.evaluate(() =>
      (document.getElementById("a") as unknown as { close(): void }).close()
    );
    await page.waitForFunction(() =>
      !document.getElementById("a")!.shadowRoot!.querySelector("iframe") &&
      document.getElementById("a")!.getAttribute("status") === "idle"
    );
    assert.equal(await page.getAttribute("#b", "status"), "open");
    assert.deepEqual(
      (await seenOf(page, "portal-session-change")).map((e) => e.id),
      ["b", "b"],
      "launcher A heard none of B's changes",
    );
    await page.close();
  },
);

Deno.test(
  "embedding: cookies blocked in the frame end in an Open in a new tab fallback, logged in",
  opts,
  async () => {
    const f = await fixture();
    const context = await launchWithFramedCookiesBlocked(f.svc.base, f.hostOrigin);
    try {
      const page = await context.newPage();
      await openHost(page, f);
      await page.click("#a button");
      const alert = page.locator("#a [role=alert]");
      await alert.waitFor();
      assert.match(await alert.textContent() ?? "", /blocked the portal's cookie/);
      const errors = await seenOf(page, "portal-launch-error");
      assert.equal(errors.at(-1)!.detail.code, "cookies_blocked");
      assert.equal(await page.getAttribute("#a", "status"), "error");
      // The frame shows the explanation, not a sign-in form.
      const frame = page.frameLocator("#a iframe");
      assert.match(await frame.locator("h1").textContent() ?? "", /cannot open inside this page/);
      assert.equal(await frame.locator("input[type=password]").count(), 0);
      const [tab] = await Promise.all([
        context.waitForEvent("page"),
        page.click("#a [part=fallback]"),
      ]);
      await tab.waitForURL(/localhost:\d+\/portal\/sessions\/\d+\?launch=\d+/);
      await tab.locator("main[data-layout=embedded] h1").waitFor();
      assert.match(await tab.locator("h1").textContent() ?? "", /Session \d+/);
      await tab.screenshot({ path: `${OUTPUT_DIR}embedding-cookies-fallback-tab.png` });
    } finally {
      await context.close();
    }
  },
);

Deno.test(
  "embedding: keyboard only, launch() and status from script, focus on the session heading",
  opts,
  async () => {
    const f = await fixture();
    const page = await openHostPage(f);
    // focus() on the element lands on its button; Enter launches.
    await page.evaluate(() => document.getElementById("b")!.focus());
    assert.equal(
      await page.evaluate(() => document.getElementById("b")!.shadowRoot!.activeElement?.tagName),
      "BUTTON",
    );
    await page.keyboard.press("Enter");
    const frame = page.frameLocator("#b iframe");
    await frame.locator("main h1").waitFor();
    const portalFrame = page.frames().find((fr) => /\/portal\/sessions\/\d+/.test(fr.url()))!;
    await portalFrame.waitForFunction(() => document.activeElement?.tagName === "H1");
    // Tab reaches the session's controls inside the frame, and Enter uses them.
    await page.keyboard.press("Tab");
    const focused = await portalFrame.evaluate(() => document.activeElement?.tagName);
    assert.ok(["BUTTON", "A", "INPUT", "SELECT", "SUMMARY"].includes(focused ?? ""), `${focused}`);
    // launch() from script, with the status passing through signing to open.
    const statuses = await page.evaluate(async () => {
      const el = document.getElementById("a") as unknown as {
        launch(): Promise<void>;
        status: string;
      };
      const seenStatuses: string[] = [];
      const observer = new MutationObserver(() =>
        seenStatuses.push((el as unknown as Element).getAttribute("status")!)
      );
      observer.observe(el as unknown as Element, { attributes: true, attributeFilter: ["status"] });
      await el.launch();
      await new Promise((r) => setTimeout(r, 0));
      observer.disconnect();
      return seenStatuses;
    });
    assert.deepEqual(statuses, ["signing", "open"]);
    await page.close();
  },
);

Deno.test(
  "accessibility: the host page with the element in each target, before and after a launch",
  opts,
  async () => {
    const f = await fixture();
    const page = await openHostPage(f);
    const found = (await seriousViolations(page)).map((v) => `before: ${v}`);
    await page.click("#a button");
    await page.frameLocator("#a iframe").locator("main h1").waitFor();
    found.push(...(await seriousViolations(page)).map((v) => `iframe open: ${v}`));
    await page.evaluate(() => document.getElementById("b")!.setAttribute("sign-url", "/nowhere"));
    await page.click("#b button");
    await page.locator("#b [role=alert]").waitFor();
    found.push(...(await seriousViolations(page)).map((v) => `error shown: ${v}`));
    await page.close();
    assert.deepEqual(found, []);
  },
);
