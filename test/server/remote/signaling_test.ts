/**
 * The signaling socket over real HTTP, both backends: who may open one (login and CSRF, join
 * token and device, Origin), relaying between the sides with the ICE filter, what is refused
 * (not JSON, unknown shapes, the wrong side's messages, sharing before consent, over 64 KiB, too
 * many messages), and ending from a side with the duration and callback events recorded.
 */
import assert from "node:assert/strict";
import { backends } from "../../helpers/db.ts";
import {
  agentSocket,
  customerCookie,
  customerSocket,
  landAgent,
  remoteService,
  socket,
} from "./fixture.ts";
import { SIGNAL_LIMITS } from "../../../server/remote/relay.ts";
import { waitUntil } from "../../helpers/crm_server.ts";

for (const backend of backends) {
  Deno.test({
    name: `remote signaling (${backend.name}): access, relay, refusals, end`,
    sanitizeOps: false,
    sanitizeResources: false,
    async fn(t) {
      const { svc, admin, app } = await remoteService(backend, {
        REMOTE_ICE_ADDRESSES: "127.0.0.1",
        CALLBACK_ALLOW_PRIVATE_NETWORKS: "true",
      });
      try {
        const patched = await svc.api("PATCH", `/api/v1/admin/apps/${app.appName}`, admin, {
          callbackUrl: "http://127.0.0.1:9/hooks/{referenceId}",
        });
        assert.equal(patched.status, 200, await patched.text());
        const agent = await landAgent(svc, app, {}, { referenceId: "500Ab00000XyZ1" });
        // What a browser's WebSocket sends (RFC 6455's sample key).
        const handshake = {
          Upgrade: "websocket",
          Connection: "Upgrade",
          "Sec-WebSocket-Version": "13",
          "Sec-WebSocket-Key": "dGhlIHNhbXBsZSBub25jZQ==",
        };
        const ws = (path: string) =>
          svc.request(path, { headers: { ...handshake, Origin: svc.base, Cookie: agent.cookie } });

        await t.step("who may open a socket", async () => {
          const rid = agent.remoteId;
          const noCsrf = await ws(`/portal/remote/${rid}/ws`);
          assert.equal(noCsrf.status, 403);
          assert.equal((await noCsrf.json()).code, "csrf_refused");
          const evil = await svc.request(`/portal/remote/${rid}/ws?csrf=${agent.csrf}`, {
            headers: { ...handshake, Origin: "https://evil.example", Cookie: agent.cookie },
          });
          assert.equal(evil.status, 403);
          assert.equal((await evil.json()).code, "origin_refused");
          const signedOut = await svc.request(`/portal/remote/${rid}/ws`, {
            headers: { ...handshake, Origin: svc.base, Accept: "application/json" },
          });
          assert.equal(signedOut.status, 401);
          const plain = await ws(`/portal/remote/${rid}/ws?csrf=${agent.csrf}`.replace("", ""));
          assert.notEqual(plain.status, 200);
          const other = await landAgent(svc, app, { id: "agent77", email: "bo@example.com" });
          const foreign = await svc.request(`/portal/remote/${rid}/ws?csrf=${other.csrf}`, {
            headers: { ...handshake, Origin: svc.base, Cookie: other.cookie },
          });
          assert.equal(foreign.status, 404, "an agent who does not reach the session");
          const noDevice = await svc.request(`/portal/r/${agent.token}/ws`, {
            headers: { ...handshake, Origin: svc.base },
          });
          assert.equal(noDevice.status, 409);
          const bad = await svc.request(`/portal/r/${"x".repeat(43)}/ws`, {
            headers: { ...handshake, Origin: svc.base },
          });
          assert.equal(bad.status, 404);
          // Not a whole handshake: 400 before anything is done for it (the device stays unbound).
          const device = await customerCookie(agent.joinUrl);
          for (
            const drop of ["Connection", "Sec-WebSocket-Version", "Sec-WebSocket-Key"] as const
          ) {
            const headers: Record<string, string> = {
              ...handshake,
              Origin: svc.base,
              Cookie: device,
            };
            delete headers[drop];
            const partial = await svc.request(`/portal/r/${agent.token}/ws`, { headers });
            assert.equal(partial.status, 400, drop);
            assert.equal((await partial.json()).code, "websocket_handshake_invalid");
          }
          const [bound] = await svc.db.sql`select device_hash is null as unbound
            from remote_sessions where id = ${rid}`;
          assert.equal(bound.unbound, true, "no device bound by a refused handshake");
        });

        const cookie = await customerCookie(agent.joinUrl);
        const a = agentSocket(svc, agent);
        const c = customerSocket(svc, agent, cookie);
        await Promise.all([a.opened, c.opened]);

        await t.step("messages cross between the sides, candidates filtered", async () => {
          assert.equal((await a.next((m) => m.type === "welcome")).side, "agent");
          assert.equal((await c.next((m) => m.type === "welcome")).status, "joined");
          c.send({ type: "hello" });
          assert.deepEqual((await a.next((m) => m.msg?.type === "hello")).from, "customer");
          a.send({ type: "here" });
          await c.next((m) => m.msg?.type === "here" && m.from === "agent");
          const cand = (addr: string) => ({
            type: "candidate",
            gen: 1,
            candidate: {
              candidate: `candidate:1 1 udp 2122260223 ${addr} 50000 typ host`,
              sdpMid: "0",
              sdpMLineIndex: 0,
            },
          });
          c.send(cand("10.1.2.3"));
          c.send(cand("127.0.0.1"));
          const got = await a.next((m) => m.msg?.type === "candidate");
          assert.match(got.msg.candidate.candidate, / 127\.0\.0\.1 /, "10.1.2.3 was dropped");
          const sdp = "v=0\r\na=candidate:1 1 udp 1 10.9.9.9 9 typ host\r\n" +
            "a=candidate:2 1 udp 1 127.0.0.1 9 typ host\r\n" + "a=x".repeat(3000);
          c.send({ type: "sdp", gen: 1, description: { type: "offer", sdp } });
          const offer = await a.next((m) => m.msg?.type === "sdp");
          assert.doesNotMatch(offer.msg.description.sdp, /10\.9\.9\.9/);
          assert.match(offer.msg.description.sdp, /127\.0\.0\.1/);
          assert.ok(offer.msg.description.sdp.length > 9_000, "a 9 KB offer arrives whole");
        });

        await t.step("refusals: not JSON, shapes, sides, consent first", async () => {
          c.send("not json");
          assert.equal((await c.next((m) => m.type === "error")).code, "invalid_message");
          c.send({ type: "hello", extra: 1 });
          assert.equal((await c.next((m) => m.type === "error")).code, "invalid_message");
          a.send({ type: "sdp", description: { type: "offer", sdp: "v=0" } });
          assert.equal((await a.next((m) => m.type === "error")).code, "not_allowed");
          a.send({ type: "consent" });
          assert.equal((await a.next((m) => m.type === "error")).code, "not_allowed");
          c.send({ type: "sharing", on: true });
          const refused = await c.next((m) => m.type === "error");
          assert.match(refused.message, /consent/);
          c.send({ type: "consent" });
          await a.next((m) => m.from === "service" && m.msg.status === "joined");
          c.send({ type: "sharing", on: true });
          await a.next((m) => m.from === "service" && m.msg.status === "sharing");
        });

        await t.step("a reconnecting socket reads what it missed, in order", async () => {
          const last = a.lastId;
          a.close();
          await a.closed;
          for (let i = 0; i < 20; i++) {
            c.send({ type: "candidate", gen: i, candidate: null });
          }
          await new Promise((r) => setTimeout(r, 300));
          const back = agentSocket(svc, agent, `&after=${last}`);
          await back.opened;
          const gens: number[] = [];
          while (gens.length < 20) {
            const m = await back.next((m) => m.msg?.type === "candidate");
            gens.push(m.msg.gen);
          }
          assert.deepEqual(gens, [...Array(20).keys()]);
          back.close();
          await back.closed;
        });

        await t.step("over 64 KiB, too many messages or sockets: refused and closed", async () => {
          // A client may see the close before the message saying why (Deno's client reports an
          // unclean close): either tells the refusal.
          const refusedWith = async (client: ReturnType<typeof customerSocket>, code: string) => {
            const closed = await client.closed;
            const said = client.queue.find((m) => m.type === "error");
            assert.ok(said ? said.code === code : closed.code !== 1000, `${code}: ${closed.code}`);
          };
          const big = customerSocket(svc, agent, cookie);
          await big.opened;
          big.send({ type: "sdp", description: { type: "offer", sdp: "x".repeat(70_000) } });
          await refusedWith(big, "message_too_large");
          const chatty = customerSocket(svc, agent, cookie);
          await chatty.opened;
          for (let i = 0; i < 210; i++) chatty.send({ type: "here" });
          await refusedWith(chatty, "rate_limited");
          const many = [0, 1, 2].map(() => customerSocket(svc, agent, cookie));
          await Promise.all(many.map((m) => m.opened));
          await Promise.all(many.map((m) => m.next((x) => x.type === "welcome")));
          const fifth = customerSocket(svc, agent, cookie); // c and three more are open
          await fifth.opened;
          await refusedWith(fifth, "too_many_sockets");
          for (const m of many) m.close();
          await Promise.all(many.map((m) => m.closed));
        });

        await t.step("past a remote session's limits, any message is refused", async () => {
          // A remote session of its own: its counters are set near the limits, never set back.
          const spare = await landAgent(svc, app, { id: "agent78", email: "cy@example.com" });
          const rid = spare.remoteId;
          const spareCookie = await customerCookie(spare.joinUrl);
          const set = (seq: number, bytes: number) =>
            svc.db.sql`update remote_sessions set signal_seq = ${seq}, signal_bytes = ${bytes}
            where id = ${rid}`;
          const offers = async () =>
            (await svc.db.sql`select count(*)::int as n from remote_signals
            where remote_id = ${rid} and body like '{"type":"sdp"%'`)[0].n;
          const offer = (gen: number, sdp = "v=0") => ({
            type: "sdp",
            gen,
            description: { type: "offer", sdp },
          });
          const refused = async (client: ReturnType<typeof customerSocket>) => {
            const closed = await client.closed;
            const said = client.queue.find((m) => m.type === "error");
            assert.ok(said ? said.code === "quota_exceeded" : closed.code === 1008, said?.code);
            if (said) assert.match(said.message, /20000 messages and 16 MiB/);
          };
          // 1,000 bytes short of the size: a 2 KB offer is refused, though the count allows it.
          await set(10, SIGNAL_LIMITS.bytes - 1_000);
          const sized = customerSocket(svc, spare, spareCookie);
          await sized.opened;
          sized.send(offer(1, "v=0\r\n" + "a=x\r\n".repeat(400)));
          await refused(sized);
          assert.equal(await offers(), 0, "nothing stored past the size");
          // Its close is relayed as a `bye` (counted): stored before the count is set, not after.
          await waitUntil(
            async () =>
              (await svc.db.sql`select count(*)::int as n from remote_signals
                where remote_id = ${rid} and body like '{"type":"bye"%'`)[0].n > 0,
            "the refused socket's bye",
          );
          // One message short of the count: the first offer is stored, the second refused.
          await set(SIGNAL_LIMITS.messages - 1, 0);
          const counted = customerSocket(svc, spare, spareCookie);
          await counted.opened;
          counted.send(offer(2));
          counted.send(offer(3));
          await refused(counted);
          assert.equal(await offers(), 1);
          // Still, when the customer ends it, the agent's page is told, and its socket closes.
          const watching = agentSocket(svc, spare);
          const ending = customerSocket(svc, spare, spareCookie);
          await Promise.all([watching.opened, ending.opened]);
          await watching.next((m) => m.type === "welcome");
          ending.send({ type: "end" });
          const ended = await watching.next((m) => m.from === "service");
          assert.equal(ended.msg.status, "ended");
          assert.equal((await watching.closed).code, 1000);
          assert.ok(!ending.queue.some((m) => m.type === "error"), JSON.stringify(ending.queue));
        });

        await t.step(
          "consent twice records once; sharing changes at most once a second",
          async () => {
            await new Promise((r) => setTimeout(r, 1_050));
            const count = async () =>
              (await svc.db.sql`select count(*)::int as n from session_events
              where session_id = ${agent.sessionId}`)[0].n;
            const before = await count();
            c.send({ type: "consent" });
            c.send({ type: "sharing", on: false });
            c.send({ type: "sharing", on: true });
            const fast = await c.next((m) => m.type === "error");
            assert.equal(fast.code, "rate_limited");
            assert.equal((await count()) - before, 1, "only the sharing stop is recorded");
            await new Promise((r) => setTimeout(r, 1_050));
            c.send({ type: "sharing", on: true });
            const until = Date.now() + 5_000;
            while (Date.now() < until) {
              const [r] = await svc.db.sql`select status from remote_sessions
              where id = ${agent.remoteId}`;
              if (r.status === "sharing") break;
              await new Promise((r) => setTimeout(r, 50));
            }
          },
        );

        await t.step(
          "the customer ends: both sides told, durations and events recorded",
          async () => {
            const a2 = agentSocket(svc, agent);
            await a2.opened;
            await new Promise((r) => setTimeout(r, 1_100));
            c.send({ type: "end" });
            const ended = await a2.next((m) => m.from === "service" && m.msg.status === "ended");
            assert.equal(ended.msg.endedBy, "customer");
            assert.equal((await a2.closed).code, 1000);
            assert.equal((await c.closed).code, 1000);
            const res = await svc.api("GET", `/api/v1/sessions/${agent.sessionId}/remote`, admin);
            const [row] = (await res.json()).items;
            assert.equal(row.status, "ended");
            assert.equal(row.endedBy, "customer");
            assert.ok(row.sharingSeconds >= 1, JSON.stringify(row));
            const events = await svc.db.sql`select type, payload from callback_events
            where session_id = ${agent.sessionId} and type like 'remote.%' order by id`;
            assert.deepEqual(events.map((e) => e.type), [
              "remote.requested",
              "remote.invited",
              "remote.started",
              "remote.ended",
            ]);
            const invited = events[1].payload.data;
            assert.equal(invited.joinUrl, agent.joinUrl);
            assert.equal(invited.code, agent.code);
            const endedData = events[3].payload.data;
            assert.equal(endedData.endedBy, "customer");
            assert.ok(endedData.durationSeconds >= 1);
            const again = socket(`${agent.joinUrl}/ws`, { Origin: svc.base, Cookie: cookie });
            const closed = await again.closed;
            assert.notEqual(closed.code, 1000, "an ended link opens no socket");
          },
        );
      } finally {
        await svc.close();
      }
    },
  });
}
