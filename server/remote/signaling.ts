/**
 * The signaling WebSocket of a remote session, the same for both sides (docs/remote.md#signaling).
 * The routes (routes.tsx) authenticate before the upgrade; here a socket relays its side's
 * messages to the other side through the SignalRelay and records what the customer does. Each
 * message is text, at most 64 KiB, JSON of one of the shapes below (zod); a socket sends at most
 * RATE_BURST messages at once and RATE_PER_SECOND on average, else it is closed (1008). Every
 * handler is awaited and caught: nothing a client sends can end the process.
 *
 * Client → service: `hello` (I am here), `here` (answer to hello), `sdp` (offer: customer only;
 * answer: agent only), `candidate`, `consent` and `sharing` (customer only), `end`.
 * Service → client: `{type: "welcome", side, status, lastId}` once, then `{id, from, msg}` for
 * each relayed message (`id`: its position in the remote session, what a reconnect passes as
 * `after`) (`from`: the other side, or `service` for `{type: "status", status,
 * endedBy?}`), and `{type: "error", code, message}` for a refused message.
 */
import { z } from "zod";
import type { WSContext, WSEvents } from "hono/ws";
import type { Deps } from "../deps.ts";
import { remoteById, type RemoteRow } from "../../db/queries/remote.ts";
import { SIGNAL_LIMITS, type Subscription } from "./relay.ts";
import type { SignalLimits } from "../../db/queries/remote.ts";
import { candidateAllowed, filterSdp } from "./ice.ts";
import { consent, endRemote, sharing } from "./invitations.ts";
import { log } from "../log.ts";

/** A side of a remote session. */
export type Side = "agent" | "customer";

/** The largest message accepted, in bytes. */
export const MAX_MESSAGE_BYTES = 64 * 1024;
/** Messages a socket may send at once, and per second on average. */
export const RATE_BURST = 200;
export const RATE_PER_SECOND = 50;
/** Messages of one socket waiting their turn at most (more: refused as too many). */
const MAX_WAITING = 64;
/** The least time between two sharing changes of a socket. */
const SHARING_CHANGE_MS = 1_000;
/** Sockets of one side of one remote session per process. */
export const MAX_SOCKETS_PER_SIDE = 4;

const Candidate = z.object({
  candidate: z.string().max(2_000),
  sdpMid: z.string().max(64).nullable().optional(),
  sdpMLineIndex: z.number().int().min(0).max(255).nullable().optional(),
  usernameFragment: z.string().max(256).nullable().optional(),
}).strict();

/** The customer's peer-connection generation (a new one after each reconnect). */
const Gen = z.number().int().min(0).max(1_000_000_000).optional();

/** What a client may send. */
export const ClientMessage = z.discriminatedUnion("type", [
  z.object({ type: z.literal("hello") }).strict(),
  z.object({ type: z.literal("here") }).strict(),
  z.object({
    type: z.literal("sdp"),
    gen: Gen,
    description: z.object({
      type: z.enum(["offer", "answer"]),
      sdp: z.string().min(1).max(60_000),
    }).strict(),
  }).strict(),
  z.object({ type: z.literal("candidate"), gen: Gen, candidate: Candidate.nullable() }).strict(),
  z.object({ type: z.literal("consent") }).strict(),
  z.object({ type: z.literal("sharing"), on: z.boolean() }).strict(),
  z.object({ type: z.literal("end") }).strict(),
]);
type ClientMessage = z.infer<typeof ClientMessage>;

/** A token bucket per socket. */
class Bucket {
  #tokens = RATE_BURST;
  #at = performance.now();
  take(): boolean {
    const now = performance.now();
    this.#tokens = Math.min(RATE_BURST, this.#tokens + (now - this.#at) / 1000 * RATE_PER_SECOND);
    this.#at = now;
    if (this.#tokens < 1) return false;
    this.#tokens -= 1;
    return true;
  }
}

function refusal(code: string, message: string): string {
  return JSON.stringify({ type: "error", code, message });
}

/** Why `side` may not send `m` (null: it may). */
function roleRefusal(side: Side, m: ClientMessage): string | null {
  if ((m.type === "consent" || m.type === "sharing") && side !== "customer") {
    return "only the customer consents and shares";
  }
  if (m.type === "sdp" && (m.description.type === "offer") !== (side === "customer")) {
    return "the customer's page offers and the agent's answers";
  }
  return null;
}

/** The socket events of `side` on remote session `remote`, after relayed message `after`. */
export function signalingEvents(
  deps: Deps,
  s: { side: Side; remote: RemoteRow; after: number; agentId: number | null },
): WSEvents {
  const relay = deps.remote.relay;
  const bucket = new Bucket();
  const remoteId = s.remote.id;
  let sub: Subscription | null = null;
  let closed = false;
  let closing = false;
  let chain: Promise<void> = Promise.resolve();
  let waiting = 0;
  let lastSharingChange = 0;
  let unregister = () => {};

  /** Says why (an `error` message: a client may not see the close code) and closes. */
  const refuseAndClose = (ws: WSContext, code: number, name: string, message: string) => {
    closing = true;
    ws.send(refusal(name, message));
    ws.close(code, name);
  };

  /**
   * Relays `body` from `sender`; once the remote session has relayed all SIGNAL_LIMITS allow
   * (nothing more is stored, whoever sends it), refuses and closes the socket instead.
   */
  const publish = async (
    ws: WSContext,
    sender: Side | "service",
    body: unknown,
    limits: SignalLimits | null = SIGNAL_LIMITS,
  ) => {
    if (await relay.publish(remoteId, sender, body, limits) !== null) return;
    const { messages, bytes } = SIGNAL_LIMITS;
    refuseAndClose(
      ws,
      1008,
      "quota_exceeded",
      `a remote session relays at most ${messages} messages and ${bytes / 1024 / 1024} MiB: ` +
        "end it and invite the customer again",
    );
  };

  /**
   * Relays the remote session's status. `ending`: this socket's `end` just ended it, news the
   * other side must get whatever the session has relayed (its socket closes on it); once a
   * session, since only the call that ends it records the end.
   */
  const publishStatus = async (ws: WSContext, ending = false) => {
    const now = await remoteById(deps.sql, remoteId);
    if (!now) return;
    await publish(ws, "service", {
      type: "status",
      status: now.status,
      ...(now.endedBy ? { endedBy: now.endedBy } : {}),
    }, ending ? null : SIGNAL_LIMITS);
  };

  /**
   * The checks made as a message arrives, before it waits its turn: its type, its size, the rate,
   * and how many wait (a flood is refused before it is held in memory). False: refused.
   */
  function admit(ws: WSContext, data: unknown): data is string {
    if (closing) return false;
    if (typeof data !== "string") {
      refuseAndClose(ws, 1003, "invalid_message", "text messages only");
      return false;
    }
    if (
      data.length > MAX_MESSAGE_BYTES || new TextEncoder().encode(data).length > MAX_MESSAGE_BYTES
    ) {
      refuseAndClose(ws, 1009, "message_too_large", `at most ${MAX_MESSAGE_BYTES} bytes`);
      return false;
    }
    if (!bucket.take() || waiting >= MAX_WAITING) {
      refuseAndClose(
        ws,
        1008,
        "rate_limited",
        `at most ${RATE_BURST} messages at once, ${RATE_PER_SECOND} per second`,
      );
      return false;
    }
    return true;
  }

  async function handle(ws: WSContext, data: string): Promise<void> {
    if (closing) return;
    let json: unknown;
    try {
      json = JSON.parse(data);
    } catch {
      ws.send(refusal("invalid_message", "not JSON"));
      return;
    }
    const parsed = ClientMessage.safeParse(json);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      ws.send(refusal("invalid_message", `${issue.path.join(".") || "type"}: ${issue.message}`));
      return;
    }
    const m = parsed.data;
    const refused = roleRefusal(s.side, m);
    if (refused) {
      ws.send(refusal("not_allowed", refused));
      return;
    }
    const config = deps.config.remote;
    switch (m.type) {
      case "candidate":
        if (m.candidate && !candidateAllowed(config, m.candidate.candidate)) return;
        return await publish(ws, s.side, m);
      case "sdp":
        return await publish(ws, s.side, {
          type: "sdp",
          gen: m.gen,
          description: { type: m.description.type, sdp: filterSdp(config, m.description.sdp) },
        });
      case "consent":
        if (await consent(deps, s.remote)) await publishStatus(ws);
        return;
      case "sharing":
        // Each change is a record on the session: not more than one a second.
        if (performance.now() - lastSharingChange < SHARING_CHANGE_MS) {
          ws.send(refusal("rate_limited", "sharing changes at most once a second"));
          return;
        }
        if (!(await sharing(deps, s.remote, m.on))) {
          ws.send(refusal("not_allowed", m.on ? "consent first" : "not sharing"));
          return;
        }
        lastSharingChange = performance.now();
        await publishStatus(ws);
        return;
      case "end":
        await publishStatus(ws, await endRemote(deps, s.remote, s.side, s.agentId));
        return;
      default:
        return await publish(ws, s.side, m);
    }
  }

  return {
    onOpen(_evt, ws) {
      if (relay.socketsOf(remoteId, s.side) >= MAX_SOCKETS_PER_SIDE) {
        return refuseAndClose(ws, 1008, "too_many_sockets", "close another page of this session");
      }
      unregister = relay.register(ws, remoteId, s.side);
      ws.send(JSON.stringify({
        type: "welcome",
        side: s.side,
        status: s.remote.status,
        lastId: s.after,
      }));
      sub = relay.subscribe(remoteId, s.side, s.after, (row) => {
        if (closed) return;
        ws.send(`{"id":${row.seq},"from":"${row.sender}","msg":${row.body}}`);
        if (row.sender === "service" && /"status":"(ended|expired)"/.test(row.body)) {
          closed = true;
          sub?.close();
          ws.close(1000, "ended");
        }
      });
    },
    onMessage(evt, ws) {
      const data = evt.data;
      if (!admit(ws, data)) return;
      // One message at a time per socket: its messages are stored (and relayed) in sent order.
      waiting++;
      chain = chain.then(() => handle(ws, data)).catch((err) => {
        log.warn("remote signaling: a message failed", {
          remoteId,
          side: s.side,
          error: err instanceof Error ? err.message : String(err),
        });
        try {
          ws.send(refusal("server_error", "the message could not be handled; try again"));
        } catch { /* the socket is gone */ }
      }).finally(() => waiting--);
    },
    onClose() {
      closed = true;
      unregister();
      sub?.close();
      relay.publish(remoteId, s.side, { type: "bye" }).catch(() => {});
    },
    onError() {
      closed = true;
      unregister();
      sub?.close();
    },
  };
}
