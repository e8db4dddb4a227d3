/// <reference lib="dom" />
/** Screen sharing in Chromium: the browsers, the agent's landing and the customer's page. */
import assert from "node:assert/strict";
import type { Browser, Page } from "playwright-core";
import { launchFullChromium } from "./browser.ts";
import { signLaunch, type TestApp } from "./launch.ts";
import { launchPayload } from "./payload.ts";

/** Chromium flags of WebRTC tests: fake capture (the tab itself), loopback candidates. */
export const WEBRTC_ARGS = [
  "--use-fake-ui-for-media-stream",
  "--use-fake-device-for-media-stream=display-media-type=browser",
  "--allow-loopback-in-peer-connection",
  "--disable-features=WebRtcHideLocalIpsWithMdns",
];

/** A Chromium process with the WebRTC flags (one for each side: two processes). */
export async function launchWebRtcChromium(): Promise<Browser> {
  return await launchFullChromium(WEBRTC_ARGS);
}

/** Launches as agent `user` with `paths.remote` and no search: lands on the remote view. */
export async function landAgentInRemoteView(
  page: Page,
  base: string,
  app: TestApp,
  user: Record<string, string> = {},
): Promise<{ sessionId: number; joinUrl: string; code: string }> {
  const signed = await signLaunch(
    launchPayload({ paths: { search: [], remote: true } }, user),
    app.apiKey,
  );
  await page.goto(`${base}/healthz`);
  await page.setContent(
    `<form method="post" action="${base}/portal/api/auth/app/${app.appName}">` +
      `<input name="signed_request" value="${signed}"></form>`,
  );
  await Promise.all([
    page.waitForURL(/\/portal\/sessions\/\d+\/remote/),
    page.evaluate(() => document.forms[0].submit()),
  ]);
  await page.waitForSelector("[data-testid=remote-invite]");
  const sessionId = Number(new URL(page.url()).pathname.split("/")[3]);
  const joinUrl = await page.inputValue("#join-url");
  const code = (await page.textContent("[data-testid=remote-code]"))!.replace(/\s/g, "");
  assert.match(joinUrl, /\/portal\/r\/[A-Za-z0-9_-]{43}$/);
  assert.match(code, /^\d{9}$/);
  return { sessionId, joinUrl, code };
}

/** The customer opens the link (unless already there), consents and clicks Share. */
export async function customerShares(page: Page, joinUrl?: string): Promise<void> {
  if (joinUrl) await page.goto(joinUrl);
  await page.check("[data-testid=consent]");
  await page.waitForFunction(() =>
    !(document.querySelector("[data-testid=share]") as HTMLButtonElement).disabled
  );
  await page.click("[data-testid=share]");
}

/** Waits until the agent's video shows frames of the customer's size; answers its size. */
export async function agentSeesScreen(
  page: Page,
  timeoutMs = 30_000,
): Promise<{ width: number; height: number }> {
  await page.waitForFunction(
    () => {
      const v = document.querySelector("[data-testid=screen]") as HTMLVideoElement;
      return v.videoWidth > 0 && v.readyState >= 2;
    },
    undefined,
    { timeout: timeoutMs },
  );
  return await page.evaluate(() => {
    const v = document.querySelector("[data-testid=screen]") as HTMLVideoElement;
    return { width: v.videoWidth, height: v.videoHeight };
  });
}

/** The agent's `inbound-rtp` video framesDecoded. */
export async function framesDecoded(page: Page): Promise<number> {
  return await page.evaluate(async () => {
    // deno-lint-ignore no-explicit-any
    const pc = (globalThis as any).remoteSession?.pc() as RTCPeerConnection | undefined;
    if (!pc) return 0;
    let frames = 0;
    (await pc.getStats()).forEach((s) => {
      if (s.type === "inbound-rtp" && s.kind === "video") frames += s.framesDecoded ?? 0;
    });
    return frames;
  });
}

/** The colour of the agent's video at (x, y) in the shared image's pixels. */
export async function agentPixel(page: Page, x: number, y: number): Promise<number[]> {
  return await page.evaluate(([px, py]) => {
    const v = document.querySelector("[data-testid=screen]") as HTMLVideoElement;
    const canvas = document.createElement("canvas");
    canvas.width = v.videoWidth;
    canvas.height = v.videoHeight;
    const g = canvas.getContext("2d")!;
    g.drawImage(v, 0, 0);
    return Array.from(g.getImageData(px, py, 1, 1).data);
  }, [x, y]);
}

/**
 * The selected pair of the agent's connection: each side's candidate type and address (a remote
 * `prflx` is the customer's host candidate seen before its signaling message arrived). The pair
 * is the one the transport names (`selectedCandidatePairId`), else one nominated and succeeded.
 * Media can flow a moment before the stats name the pair: asked again for up to `timeoutMs`;
 * empty when none was named by then.
 */
export async function selectedCandidateTypes(page: Page, timeoutMs = 5_000): Promise<string[]> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const found = await page.evaluate(async () => {
      // deno-lint-ignore no-explicit-any
      const pc = (globalThis as any).remoteSession?.pc() as RTCPeerConnection;
      const stats = await pc.getStats();
      const byId = new Map<string, Record<string, unknown>>();
      stats.forEach((s) => byId.set(s.id, s));
      const all = [...byId.values()];
      const transport = all.find((s) => s.type === "transport" && s.selectedCandidatePairId);
      const pair = transport
        ? byId.get(String(transport.selectedCandidatePairId))
        : all.find((s) => s.type === "candidate-pair" && s.state === "succeeded" && s.nominated);
      if (!pair) return [];
      const local = byId.get(String(pair.localCandidateId));
      const remote = byId.get(String(pair.remoteCandidateId));
      return [
        `${local?.candidateType} ${local?.address}`,
        `${remote?.candidateType} ${remote?.address}`,
      ];
    });
    if (found.length || Date.now() > end) return found;
    await new Promise((r) => setTimeout(r, 100));
  }
}
