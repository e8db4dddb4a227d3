/**
 * A CRM receiver for tests of several service processes: it records every callback with the
 * client's TCP port, can hold callbacks unanswered (so an attempt is in flight for as long as a
 * test needs), and tells which process sent a held one (Linux: the socket's owner, from /proc).
 *
 * A held callback's sender is looked up when it arrives, while its connection is open. Looked up
 * later, the port can name another process: once a killed sender's socket is in TIME_WAIT, Linux
 * hands its port to the next loopback connection (`net.ipv4.tcp_tw_reuse`, 2 by default).
 */

/** One callback received. */
export interface Hit {
  at: number;
  webhookId: string;
  referenceId: string;
  /** The sender's local TCP port. */
  port: number;
  /** The sending process, of `HoldingCrm.pids`, for a callback that arrived while holding. */
  owner?: number;
  answered: boolean;
}

/** The receiver. */
export interface HoldingCrm {
  url: string;
  hits: Hit[];
  /** While true, callbacks are held unanswered until released. */
  holding: boolean;
  /** The processes a held callback's `owner` is looked up among. */
  pids: number[];
  /** Answers the held callbacks that `which` selects (all by default). */
  release(which?: (hit: Hit) => boolean): void;
  /** The callbacks held now. */
  held(): Hit[];
  close(): Promise<void>;
}

/** Starts the receiver on a free port of 127.0.0.1; it answers 200 after `delayMs`. */
export function startHoldingCrm(delayMs = 30): HoldingCrm {
  const ac = new AbortController();
  const waiting = new Map<Hit, () => void>();
  const crm: HoldingCrm = {
    url: "",
    hits: [],
    holding: false,
    pids: [],
    release(which = () => true) {
      for (const [hit, answer] of waiting) if (which(hit)) answer();
    },
    held: () => [...waiting.keys()],
    async close() {
      crm.release();
      ac.abort();
      await server.finished;
    },
  };
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, signal: ac.signal, onListen: () => {} },
    async (req, info) => {
      await req.arrayBuffer();
      const hit: Hit = {
        at: performance.now(),
        webhookId: req.headers.get("webhook-id") ?? "",
        referenceId: new URL(req.url).pathname.split("/").pop() ?? "",
        port: (info.remoteAddr as Deno.NetAddr).port,
        answered: false,
      };
      if (crm.holding) hit.owner = await socketOwner(hit.port, crm.pids);
      crm.hits.push(hit);
      if (crm.holding) {
        // Until released (close() releases all): an answer to a sender that died or gave up
        // meanwhile goes nowhere, and the hit stays unanswered.
        await new Promise<void>((resolve) => waiting.set(hit, resolve));
        waiting.delete(hit);
      } else {
        await new Promise((r) => setTimeout(r, delayMs));
      }
      hit.answered = !req.signal.aborted;
      return new Response(null, { status: 200 });
    },
  );
  crm.url = `http://127.0.0.1:${server.addr.port}`;
  return crm;
}

/** Which of `pids` owns the TCP socket bound to local port `port` (Linux /proc), if any. */
async function socketOwner(port: number, pids: number[]): Promise<number | undefined> {
  const hex = `:${port.toString(16).toUpperCase().padStart(4, "0")}`;
  const inodes = new Set<string>();
  for (const table of ["/proc/net/tcp", "/proc/net/tcp6"]) {
    const text = await Deno.readTextFile(table).catch(() => "");
    for (const line of text.split("\n").slice(1)) {
      const f = line.trim().split(/\s+/);
      if (f.length > 9 && f[1].endsWith(hex) && f[9] !== "0") inodes.add(f[9]);
    }
  }
  for (const pid of pids) {
    try {
      for await (const fd of Deno.readDir(`/proc/${pid}/fd`)) {
        const link = await Deno.readLink(`/proc/${pid}/fd/${fd.name}`).catch(() => "");
        const inode = /^socket:\[(\d+)\]$/.exec(link)?.[1];
        if (inode && inodes.has(inode)) return pid;
      }
    } catch { /* the process is gone */ }
  }
  return undefined;
}
