/**
 * The signaling relay between the two sides of a remote session, wherever their sockets are.
 * Every message is a row of remote_signals at the next position (`seq`) of its remote session,
 * and a session's rows commit in seq order (db/queries/remote.ts insertSignal); a socket's
 * subscription reads the rows after the last position it delivered, from anyone but its own
 * side, in order. A publish wakes this process's subscriptions of the other sides at once; on
 * PostgreSQL it also sends `NOTIFY remote_signal, '<remote id>:<sender>:<relay>'` in the same
 * statement, and every process LISTENs (on DATABASE_DIRECT_URL when set: a transaction-mode
 * pooler cannot LISTEN) and wakes its own (a relay ignores its own notifications: it woke them
 * already). Since a wake re-reads from the last delivered position, a lost or duplicated
 * notification, a reconnect (a socket's `after`) or notifications out of order lose and double
 * nothing. After the LISTEN connection comes back, every subscription is woken. Embedded mode
 * has one process: the local wake is the whole relay.
 */
import type { Sql } from "../../db/mod.ts";
import {
  insertSignal,
  type SignalLimits,
  type SignalRow,
  signalsAfter,
} from "../../db/queries/remote.ts";
import { log } from "../log.ts";

/**
 * What one remote session may relay, every message counted, whoever sends it (a socket's `bye`
 * and the service's status messages too): 20,000 messages and 16 MiB of them. A session that
 * connects, offers and trickles its candidates a few times uses well under 1 % of either.
 */
export const SIGNAL_LIMITS: SignalLimits = { messages: 20_000, bytes: 16 * 1024 * 1024 };

/** A side of a remote session, and the service's own messages (status) to both. */
export type Sender = "agent" | "customer" | "service";

/** The channel of the relay's notifications. */
export const RELAY_CHANNEL = "remote_signal";

/** One socket's subscription: it gets the other sides' rows after position `lastSeq`, in order. */
export class Subscription {
  #running = false;
  #again = false;
  #closed = false;

  constructor(
    private relay: SignalRelay,
    readonly remoteId: number,
    readonly side: Sender,
    public lastSeq: number,
    private deliver: (row: SignalRow) => void,
  ) {}

  /** Reads and delivers what is new; one read at a time, again if woken meanwhile. */
  async pull(): Promise<void> {
    if (this.#closed) return;
    if (this.#running) {
      this.#again = true;
      return;
    }
    this.#running = true;
    try {
      do {
        this.#again = false;
        const rows = await signalsAfter(this.relay.sql, this.remoteId, this.lastSeq, this.side);
        for (const row of rows) {
          if (this.#closed) return;
          this.lastSeq = Number(row.seq);
          this.deliver(row);
        }
        if (rows.length === 500) this.#again = true;
      } while (this.#again && !this.#closed);
    } catch (err) {
      log.warn("remote relay: a read failed", {
        remoteId: this.remoteId,
        error: err instanceof Error ? err.message : String(err),
      });
    } finally {
      this.#running = false;
    }
  }

  /** Stops deliveries. */
  close(): void {
    this.#closed = true;
    this.relay.unsubscribe(this);
  }
}

/** The relay of one service: its subscriptions by remote session and its LISTEN. */
export class SignalRelay {
  #rooms = new Map<number, Set<Subscription>>();
  #sockets = new Map<{ close(code: number, reason: string): void }, string>();
  #unlisten: (() => Promise<void>) | null = null;
  /** This relay's name in its notifications. */
  readonly name = crypto.randomUUID().slice(0, 8);

  /**
   * `sql` stores and reads rows; `listenSql` (PostgreSQL: the direct handle) receives other
   * processes' notifications; null in embedded mode.
   */
  constructor(readonly sql: Sql, private listenSql: Sql | null) {}

  /** Starts listening (PostgreSQL). */
  async start(): Promise<void> {
    if (!this.listenSql) return;
    const listening = await this.listenSql.listen(
      RELAY_CHANNEL,
      (payload) => {
        const [id, sender, origin] = payload.split(":");
        const remoteId = Number(id);
        if (origin !== this.name && Number.isSafeInteger(remoteId)) this.#wake(remoteId, sender);
      },
      // Called again after the LISTEN connection came back: read what was sent meanwhile.
      () => this.#wakeAll(),
    );
    this.#unlisten = () => listening.unlisten();
  }

  /** Stops listening and every subscription. */
  async stop(): Promise<void> {
    for (const room of this.#rooms.values()) for (const s of room) s.close();
    await this.#unlisten?.().catch(() => {});
    this.#unlisten = null;
  }

  /** Subscribes a socket of `side` to remote session `remoteId` after position `afterSeq`. */
  subscribe(
    remoteId: number,
    side: Sender,
    afterSeq: number,
    deliver: (row: SignalRow) => void,
  ): Subscription {
    const s = new Subscription(this, remoteId, side, afterSeq, deliver);
    const room = this.#rooms.get(remoteId) ?? new Set();
    room.add(s);
    this.#rooms.set(remoteId, room);
    void s.pull();
    return s;
  }

  /** Forgets a closed subscription. */
  unsubscribe(s: Subscription): void {
    const room = this.#rooms.get(s.remoteId);
    room?.delete(s);
    if (room && room.size === 0) this.#rooms.delete(s.remoteId);
  }

  /**
   * Stores a message of `sender` for remote session `remoteId` and wakes its readers; its seq, or
   * null when the session has relayed all SIGNAL_LIMITS allow (nothing stored). `limits` null:
   * stored anyway (the news that the session ended, which the other side must get).
   */
  async publish(
    remoteId: number,
    sender: Sender,
    body: unknown,
    limits: SignalLimits | null = SIGNAL_LIMITS,
  ): Promise<number | null> {
    const seq = await insertSignal(this.sql, {
      remoteId,
      sender,
      body: JSON.stringify(body),
      notify: this.listenSql !== null ? this.name : null,
      limits,
    });
    if (seq !== null) this.#wake(remoteId, sender);
    return seq;
  }

  /** Keeps an open signaling socket of `side` of `remoteId`, to close at shutdown; its removal. */
  register(
    socket: { close(code: number, reason: string): void },
    remoteId: number,
    side: Sender,
  ): () => void {
    this.#sockets.set(socket, `${remoteId}:${side}`);
    return () => this.#sockets.delete(socket);
  }

  /** The open sockets of `side` of `remoteId` in this process. */
  socketsOf(remoteId: number, side: Sender): number {
    let n = 0;
    for (const key of this.#sockets.values()) if (key === `${remoteId}:${side}`) n++;
    return n;
  }

  /**
   * Closes every open signaling socket with 1001 (going away) so that the listener can close:
   * the pages reconnect (to another instance behind a balancer) and read what they missed.
   */
  closeSockets(): number {
    const n = this.#sockets.size;
    for (const socket of this.#sockets.keys()) {
      try {
        socket.close(1001, "going away");
      } catch { /* closed already */ }
    }
    this.#sockets.clear();
    return n;
  }

  /** Wakes the subscriptions of `remoteId` (but those of `sender`'s side: nothing for them). */
  #wake(remoteId: number, sender?: string): void {
    for (const s of this.#rooms.get(remoteId) ?? []) if (s.side !== sender) void s.pull();
  }

  #wakeAll(): void {
    for (const id of this.#rooms.keys()) this.#wake(id);
  }
}
