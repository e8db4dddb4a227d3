/// <reference lib="dom" />
/**
 * Screen sharing in two Chromium processes (agent, customer): host candidates on one service,
 * relay-only through a real coturn on loopback (and a wrong TURN secret failing cleanly), agent
 * and customer on two service processes over PostgreSQL; consent, link reuse, expiry, wrong
 * codes; the agent's video at the customer's size with frames decoded and the customer's colours;
 * chat both ways, the pointer, ending from either side with the duration recorded.
 */
import assert from "node:assert/strict";
import type { Browser, Page } from "playwright-core";
import { pglite, postgresBackend, TEST_DATABASE_URL } from "../helpers/db.ts";
import { type HttpTestService, startHttpService } from "../helpers/http_service.ts";
import { createTestApp, type TestApp } from "../helpers/launch.ts";
import {
  agentPixel,
  agentSeesScreen,
  customerShares,
  framesDecoded,
  landAgentInRemoteView,
  launchWebRtcChromium,
  selectedCandidateTypes,
} from "../helpers/remote.ts";
import { freePort, startProcess, stopProcess } from "../helpers/process.ts";
import { startCoturn } from "../helpers/coturn.ts";

const backend = TEST_DATABASE_URL ? postgresBackend : pglite;
const PANEL = [0, 150, 70];

/**
 * Paints a coloured panel over the top-left corner of the customer's page, and a bar beside it
 * that moves every frame (a tab capture sends frames when the page changes).
 */
async function paintPanel(page: Page): Promise<void> {
  await page.evaluate((rgb) => {
    const d = document.createElement("div");
    d.style.cssText = `position:fixed;left:0;top:0;width:240px;height:180px;z-index:9;` +
      `background:rgb(${rgb.join(",")})`;
    const bar = document.createElement("div");
    bar.style.cssText = "position:fixed;left:260px;top:0;height:20px;z-index:9;background:#000";
    document.body.append(d, bar);
    const tick = (t: number) => {
      bar.style.width = `${Math.round(t / 10) % 300}px`;
      requestAnimationFrame(tick);
    };
    requestAnimationFrame(tick);
  }, PANEL);
}

async function remotes(svc: HttpTestService, sessionId: number, token: string) {
  const res = await svc.api("GET", `/api/v1/sessions/${sessionId}/remote`, token);
  assert.equal(res.status, 200);
  return (await res.json()).items;
}

Deno.test({
  name: "screen sharing in Chromium: host, TURN relay, two processes, consent, links, end",
  sanitizeOps: false,
  sanitizeResources: false,
  async fn(t) {
    const svc = await startHttpService(backend, { REMOTE_ICE_ADDRESSES: "127.0.0.1" });
    const browsers: Browser[] = [];
    const closers: (() => Promise<unknown>)[] = [];
    try {
      const [agentBrowser, customerBrowser] = await Promise.all([
        launchWebRtcChromium(),
        launchWebRtcChromium(),
      ]);
      browsers.push(agentBrowser, customerBrowser);
      const admin = await svc.adminToken();
      const app = await createTestApp(svc, admin, "crm");
      const agentPage = async () =>
        await (await agentBrowser.newContext({ viewport: { width: 1280, height: 1000 } }))
          .newPage();
      const customerPage = async () =>
        await (await customerBrowser.newContext({ viewport: { width: 1280, height: 720 } }))
          .newPage();

      await t.step(
        "host candidates: screen, colours, frames, chat, pointer, agent ends",
        async () => {
          const agent = await agentPage();
          const customer = await customerPage();
          const { sessionId, joinUrl } = await landAgentInRemoteView(agent, svc.base, app);
          await customer.goto(joinUrl);
          await paintPanel(customer);
          await customerShares(customer);
          const size = await agentSeesScreen(agent);
          const shared = await customer.evaluate(() => {
            const v = document.getElementById("preview") as HTMLVideoElement;
            return { width: v.videoWidth, height: v.videoHeight };
          });
          assert.deepEqual(size, shared, "the agent's video is the customer's size");
          const before = await framesDecoded(agent);
          await agent.waitForTimeout(2_000);
          assert.ok((await framesDecoded(agent)) > before + 10, "frames keep being decoded");
          const pixel = await agentPixel(agent, 60, 60);
          for (let i = 0; i < 3; i++) {
            assert.ok(Math.abs(pixel[i] - PANEL[i]) < 40, `pixel ${pixel} is the panel ${PANEL}`);
          }
          // Host candidates; only 127.0.0.1 ones crossed the relay (REMOTE_ICE_ADDRESSES), so the
          // agent talks to the customer's loopback address (its own socket may be any interface's;
          // Chromium hides the address of a peer-reflexive candidate).
          const [local, remote] = await selectedCandidateTypes(agent);
          assert.match(local, /^host /);
          assert.match(remote, /^(host 127\.0\.0\.1|prflx (127\.0\.0\.1)?)$/);
          // Chat both ways, over the data channel.
          await agent.waitForSelector("#chat-send:not([disabled])");
          await agent.fill("#chat-input", "Hello from the agent");
          await agent.click("#chat-send");
          await customer.waitForSelector(
            "[data-testid=chat-log] li:has-text('Hello from the agent')",
          );
          await customer.fill("#chat-input", "Hi, I see the pointer?");
          await customer.click("#chat-send");
          await agent.waitForSelector("[data-testid=chat-log] li:has-text('I see the pointer')");
          // The pointer: a click in the middle of the agent's picture.
          const box = (await agent.locator("[data-testid=screen]").boundingBox())!;
          await agent.mouse.click(box.x + box.width / 2, box.y + box.height / 2);
          await customer.waitForSelector("[data-testid=pointer]:not([hidden])");
          const x = Number(await customer.getAttribute("[data-testid=pointer]", "data-x"));
          assert.ok(Math.abs(x - 0.5) < 0.05, `pointer x ${x}`);
          // Reloading the agent's page reconnects (the customer's page negotiates afresh).
          await agent.reload();
          assert.deepEqual(
            await agentSeesScreen(agent),
            shared,
            "the screen is back after a reload",
          );
          // The agent ends: both sides end, the duration is recorded.
          await agent.click("[data-testid=end]");
          await customer.waitForSelector("body[data-rtc=ended]");
          await agent.waitForSelector("body[data-rtc=ended]");
          const [row] = await remotes(svc, sessionId, admin);
          assert.equal(row.status, "ended");
          assert.equal(row.endedBy, "agent");
          assert.ok(row.durationSeconds >= 2 && row.sharingSeconds >= 2, JSON.stringify(row));
          assert.ok(row.consentedAt && row.firstSharedAt);
          const kinds = (await svc.db.sql`select kind from session_events
          where session_id = ${sessionId} order by id`).map((r) => r.kind);
          assert.deepEqual(kinds, [
            "remote_requested",
            "remote_invited",
            "remote_joined",
            "remote_consented",
            "remote_sharing_started",
            "remote_ended",
          ]);
          await agent.context().close();
          await customer.context().close();
        },
      );

      await t.step("consent not given shares nothing; the customer ends", async () => {
        const agent = await agentPage();
        const customer = await customerPage();
        const { sessionId, joinUrl } = await landAgentInRemoteView(agent, svc.base, app);
        await customer.goto(joinUrl);
        await agent.waitForSelector("#chat-send:not([disabled])"); // connected, data only
        assert.equal(await customer.isDisabled("[data-testid=share]"), true);
        await agent.waitForTimeout(1_000);
        assert.equal(
          await agent.evaluate(() =>
            (document.querySelector("[data-testid=screen]") as HTMLVideoElement).videoWidth
          ),
          0,
        );
        await customer.click("[data-testid=end]");
        await agent.waitForSelector("body[data-rtc=ended]");
        const [row] = await remotes(svc, sessionId, admin);
        assert.equal(row.endedBy, "customer");
        assert.equal(row.consentedAt, null);
        assert.equal(row.firstSharedAt, null);
        await agent.context().close();
        await customer.context().close();
      });

      await t.step("one device per link, expiry, codes", async () => {
        const agent = await agentPage();
        const { sessionId, joinUrl, code } = await landAgentInRemoteView(agent, svc.base, app);
        // The code leads to the link; that browser is the customer's device.
        const first = await customerPage();
        await first.goto(`${svc.base}/portal/r`);
        await first.fill("#code", "000 000 000");
        await first.click("button[type=submit]");
        await first.waitForSelector("#code-error");
        await first.fill("#code", `${code.slice(0, 3)} ${code.slice(3, 6)} ${code.slice(6)}`);
        await Promise.all([first.waitForURL(joinUrl), first.click("button[type=submit]")]);
        // The first device that connects holds the link; another browser is refused.
        await agent.waitForSelector("#chat-send:not([disabled])");
        const second = await customerPage();
        const res = await second.goto(joinUrl);
        assert.equal(res?.status(), 409);
        assert.match(await second.textContent("[data-testid=link-state]") ?? "", /another device/);
        await second.context().close();
        await first.context().close();
        // An expired invitation: the link and the code answer as for a wrong one.
        const other = await svc.api("POST", `/api/v1/sessions/${sessionId}/remote`, admin);
        assert.equal(other.status, 201);
        const invite = await other.json();
        await svc.db.sql`update remote_sessions set expires_at = now() - interval '1 minute'
          where id = ${invite.id}`;
        const late = await customerPage();
        assert.equal((await late.goto(invite.joinUrl))?.status(), 410);
        await late.goto(`${svc.base}/portal/r`);
        await late.fill("#code", invite.code);
        const [answer] = await Promise.all([
          late.waitForResponse((r) => r.request().method() === "POST"),
          late.click("button[type=submit]"),
        ]);
        assert.equal(answer.status(), 400);
        await late.context().close();
        await agent.context().close();
      });

      await t.step("relay only through coturn; a wrong TURN secret fails cleanly", async () => {
        const turn = await startCoturn();
        closers.push(() => turn.stop());
        const relayed = async (secret: string) =>
          await startHttpService(pglite, {
            TURN_URLS: `turn:127.0.0.1:${turn.port}?transport=udp`,
            TURN_SECRET: secret,
            REMOTE_RELAY_ONLY: "true",
            REMOTE_ICE_ADDRESSES: "127.0.0.1",
          });
        for (
          const [secret, works] of [[turn.secret, true], ["not-the-secret-0123", false]] as const
        ) {
          const relay = await relayed(secret);
          try {
            const relayApp: TestApp = await createTestApp(relay, await relay.adminToken(), "crm");
            const agent = await agentPage();
            const customer = await customerPage();
            const { joinUrl } = await landAgentInRemoteView(agent, relay.base, relayApp);
            await customerShares(customer, joinUrl);
            if (works) {
              await agentSeesScreen(agent);
              assert.deepEqual(await selectedCandidateTypes(agent), [
                "relay 127.0.0.1",
                "relay 127.0.0.1",
              ]);
            } else {
              await customer.waitForSelector("body[data-rtc=failed]", { timeout: 20_000 });
              assert.match(await customer.textContent("#state") ?? "", /TURN/);
              assert.equal(
                await agent.evaluate(() =>
                  (document.querySelector("[data-testid=screen]") as HTMLVideoElement).videoWidth
                ),
                0,
              );
            }
            await agent.context().close();
            await customer.context().close();
          } finally {
            await relay.close();
          }
        }
      });

      await t.step({
        name: "agent and customer on two service processes over PostgreSQL",
        ignore: !TEST_DATABASE_URL,
        fn: async () => {
          const port = freePort();
          const other = await startProcess({
            DATABASE_URL: svc.db.url!,
            SECRET_KEY: "test-secret-key-0123456789abcdefghijklmnop",
            PUBLIC_URL: `http://127.0.0.1:${port}`,
            PORT: String(port),
            REMOTE_ICE_ADDRESSES: "127.0.0.1",
          });
          closers.push(() => stopProcess(other));
          const agent = await agentPage();
          const customer = await customerPage();
          const { sessionId, joinUrl } = await landAgentInRemoteView(agent, svc.base, app);
          const path = new URL(joinUrl).pathname;
          await customerShares(customer, `http://127.0.0.1:${port}${path}`);
          await agentSeesScreen(agent);
          await customer.click("[data-testid=end]");
          await agent.waitForSelector("body[data-rtc=ended]");
          const [row] = await remotes(svc, sessionId, admin);
          assert.equal(row.endedBy, "customer");
          await agent.context().close();
          await customer.context().close();
        },
      });
    } finally {
      for (const close of closers.reverse()) await close().catch(() => {});
      for (const b of browsers) await b.close().catch(() => {});
      await svc.close();
    }
  },
});
