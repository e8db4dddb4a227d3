/**
 * Chromium for browser tests: CHROMIUM_PATH, else the system's browser, else Playwright's own
 * download (fetched once when none is found and the network allows; never when CI is set). When
 * none can be found, the error says how to install one. Most tests run in Chromium's headless
 * shell when it is installed (`launchChromium`: half the CPU of the full browser, the same Blink);
 * screen sharing and profile settings need the full browser (`launchFullChromium`).
 */
import { type Browser, type BrowserContext, chromium, type Page } from "playwright-core";
import { tidy } from "./deadline.ts";

/** Flags for the machine's closed network and headless use. */
export const CHROMIUM_ARGS = [
  "--no-sandbox",
  "--disable-gpu",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

const SYSTEM_BROWSERS = [
  "/usr/bin/chromium",
  "/usr/bin/chromium-browser",
  "/usr/bin/google-chrome",
  "/usr/bin/google-chrome-stable",
  "/Applications/Google Chrome.app/Contents/MacOS/Google Chrome",
  "/Applications/Chromium.app/Contents/MacOS/Chromium",
];

function isFile(path: string): boolean {
  try {
    return Deno.statSync(path).isFile;
  } catch {
    return false;
  }
}

function playwrightDownload(): string | null {
  try {
    const path = chromium.executablePath();
    return isFile(path) ? path : null;
  } catch {
    return null;
  }
}

let found: Promise<string> | undefined;

async function locate(): Promise<string> {
  const configured = Deno.env.get("CHROMIUM_PATH");
  if (configured) {
    if (isFile(configured)) return configured;
    throw new Error(`CHROMIUM_PATH is set to ${configured}, which is not a file`);
  }
  const system = SYSTEM_BROWSERS.find(isFile) ?? playwrightDownload();
  if (system) return system;
  if (!Deno.env.get("CI")) {
    console.log("No Chromium found; trying Playwright's download (npx playwright install) ...");
    const out = await new Deno.Command(Deno.execPath(), {
      args: ["run", "-A", "npm:playwright-core@1.65.1", "install", "chromium"],
      stdout: "inherit",
      stderr: "inherit",
    }).output().catch(() => null);
    const downloaded = out?.success ? playwrightDownload() : null;
    if (downloaded) return downloaded;
  }
  throw new Error(
    "No Chromium for the browser tests. Install one and run again:\n" +
      "  Debian/Ubuntu: sudo apt-get install -y chromium\n" +
      "  macOS:         brew install --cask chromium\n" +
      "  or point CHROMIUM_PATH at a Chrome/Chromium binary, or run\n" +
      "  deno run -A npm:playwright-core install chromium",
  );
}

/** How long a test's browser may stay open before it is killed (a wedged test then fails). */
export const BROWSER_LIFETIME_MS = 20 * 60_000;
/** How long `close()` may take before the browser process is killed. */
const CLOSE_MS = 15_000;

/** The browser's own process id, asked of Chromium itself. */
export async function browserPid(browser: Browser): Promise<number | undefined> {
  const cdp = await browser.newBrowserCDPSession();
  try {
    const { processInfo } = await cdp.send("SystemInfo.getProcessInfo");
    return processInfo.find((p) => p.type === "browser")?.id;
  } finally {
    await cdp.detach();
  }
}

/**
 * Bounds a test's browser: `close()` kills the process when a graceful close has not finished in
 * `closeMs` (15 s), and a browser still open after `lifetimeMs` (20 min) is killed, which rejects
 * every call waiting on it. `deno test` never times a test out, so without this one wedged
 * renderer would hang the whole suite (seen once in CI, in the design walk).
 */
export async function bounded(
  browser: Browser,
  { lifetimeMs = BROWSER_LIFETIME_MS, closeMs = CLOSE_MS } = {},
): Promise<Browser> {
  const pid = await browserPid(browser);
  const kill = (why: string) => {
    if (pid === undefined || !browser.isConnected()) return;
    console.warn(`${new Date().toISOString()} Chromium ${pid}: ${why}; killed`);
    try {
      Deno.kill(pid, "SIGKILL");
    } catch { /* already gone */ }
  };
  const watchdog = setTimeout(() => kill(`open for over ${lifetimeMs / 1000} s`), lifetimeMs);
  Deno.unrefTimer(watchdog);
  browser.on("disconnected", () => clearTimeout(watchdog));
  const close = browser.close.bind(browser);
  browser.close = async (options) => {
    clearTimeout(watchdog);
    if (await tidy(`closing Chromium ${pid}`, closeMs, close(options))) return;
    kill(`no close within ${closeMs / 1000} s`);
    await tidy(`closing Chromium ${pid} after the kill`, closeMs, close(options));
  };
  return browser;
}

/** The Chromium executable the browser tests use (see `locate`). */
export async function chromiumPath(): Promise<string> {
  found ??= locate();
  return await found;
}

/**
 * Launches the browser at `executablePath` headless, with CHROMIUM_ARGS and `extraArgs`, bounded
 * (see `bounded`, whose limits `limits` may shorten).
 */
export async function launchBounded(
  executablePath: string,
  extraArgs: string[] = [],
  limits?: { lifetimeMs?: number; closeMs?: number },
): Promise<Browser> {
  const browser = await chromium.launch({ executablePath, args: [...CHROMIUM_ARGS, ...extraArgs] });
  return await bounded(browser, limits);
}

/**
 * Chromium's headless shell: Debian's package (`chromium-headless-shell`), else Playwright's
 * download (`npx playwright install chromium-headless-shell`, in ~/.cache/ms-playwright); null
 * when neither is installed.
 */
function headlessShellPath(): string | null {
  const candidates = ["/usr/bin/chromium-headless-shell"];
  const cache = `${Deno.env.get("HOME")}/.cache/ms-playwright`;
  try {
    for (const dir of Deno.readDirSync(cache)) {
      if (!dir.name.startsWith("chromium_headless_shell-")) continue;
      candidates.push(`${cache}/${dir.name}/chrome-linux/headless_shell`);
      candidates.push(`${cache}/${dir.name}/chrome-headless-shell-linux64/chrome-headless-shell`);
    }
  } catch { /* no Playwright downloads */ }
  return candidates.find(isFile) ?? null;
}

/**
 * Launches a browser for a test that needs no more than Blink (pages, forms, frames, cookies,
 * axe), with CHROMIUM_ARGS and `extraArgs`, bounded: CHROMIUM_PATH when set, else the headless
 * shell when installed (the design walk took 33 s of CPU there against 64 in the full browser),
 * else the full browser (see `locate`).
 */
export async function launchChromium(extraArgs: string[] = []): Promise<Browser> {
  const shell = Deno.env.get("CHROMIUM_PATH") ? null : headlessShellPath();
  return await launchBounded(shell ?? await chromiumPath(), extraArgs);
}

/**
 * Launches the full Chromium (see `locate`) with CHROMIUM_ARGS and `extraArgs`, bounded: for
 * screen capture (getDisplayMedia, which the headless shell lacks; a viewer in the shell gathered
 * peer-reflexive loopback candidates where the browser gathers host ones) and what a user sees.
 */
export async function launchFullChromium(extraArgs: string[] = []): Promise<Browser> {
  return await launchBounded(await chromiumPath(), extraArgs);
}

/** Launches Chromium's headless shell (see `headlessShellPath`), bounded; fails without one. */
export async function launchHeadlessShell(): Promise<Browser> {
  const path = headlessShellPath();
  if (!path) {
    throw new Error(
      "no Chromium headless shell: sudo apt-get install -y chromium-headless-shell (Debian), " +
        "or npx playwright install chromium-headless-shell",
    );
  }
  return await launchBounded(path);
}

/**
 * A headless Chromium profile that refuses the cookies of `site` whenever it is embedded in
 * `topLevel` (a content-settings exception in the profile's Preferences: partitioned cookies
 * included, as in a browser without CHIPS), and accepts them first-party. Close it when done.
 */
export async function launchWithFramedCookiesBlocked(
  site: string,
  topLevel: string,
): Promise<BrowserContext> {
  found ??= locate();
  const dir = await Deno.makeTempDir({ prefix: "pl-chromium-" });
  await Deno.mkdir(`${dir}/Default`);
  const preferences = {
    profile: {
      content_settings: { exceptions: { cookies: { [`${site},${topLevel}`]: { setting: 2 } } } },
    },
  };
  await Deno.writeTextFile(`${dir}/Default/Preferences`, JSON.stringify(preferences));
  const context = await chromium.launchPersistentContext(dir, {
    executablePath: await found,
    args: CHROMIUM_ARGS,
    headless: true,
    viewport: { width: 1100, height: 900 },
  });
  context.on("close", () => Deno.remove(dir, { recursive: true }).catch(() => {}));
  return context;
}

/** Where browser tests save screenshots for reviewers (git-ignored). */
export const OUTPUT_DIR = new URL("../output/", import.meta.url).pathname;

/**
 * Fills and submits the sign-in form the page shows (its CSRF token included, as a person would)
 * and answers the HTTP status of the POST.
 */
export async function submitSignIn(page: Page, email: string, password: string): Promise<number> {
  await page.fill("input[name=email]", email);
  await page.fill("input[name=password]", password);
  const [res] = await Promise.all([
    page.waitForResponse((r) => r.request().method() === "POST" && /\/login$/.test(r.url())),
    page.click("button[type=submit]"),
  ]);
  return res.status();
}
