/**
 * Screen sharing, signaling order: a customer's page sends its offer and a burst of ICE
 * candidates at once. Here one customer socket on process B sends `bursts` bursts of `size`
 * numbered `candidate` messages back to back (within the per-socket rate limit), one burst a
 * second, and the agent's socket on process A checks that each arrives once, in the order sent.
 */
import { open, preparePair } from "./remote_fanout.ts";

/** What arrived of the numbered messages. */
export interface BurstResult {
  sent: number;
  received: number;
  /** Numbers never delivered, and deliveries after a higher number. */
  lost: number;
  outOfOrder: number;
}

/** Runs the bursts from process `b` to process `a` (admin `token` of the shared database). */
export async function burstOrder(
  a: string,
  b: string,
  token: string,
  { bursts, size }: { bursts: number; size: number },
): Promise<BurstResult> {
  const res = await fetch(`${a}/api/v1/admin/apps`, {
    method: "POST",
    headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json" },
    body: JSON.stringify({ appName: "burst", name: "Burst", authType: "signed_request" }),
  });
  const app = await res.json();
  if (res.status !== 201) throw new Error(`burst app: ${JSON.stringify(app)}`);
  const pair = await preparePair(a, b, app, token, `burst-${Date.now()}`);
  const agent = await open(pair.agentUrl, pair.agentCookie, a);
  const customer = await open(pair.customerUrl, pair.customerCookie, b);
  const got: number[] = [];
  agent.onmessage = (e) => {
    const line = JSON.parse(String(e.data)).msg?.candidate?.candidate;
    if (typeof line === "string") got.push(Number(line.slice("candidate:".length).split(" ")[0]));
  };
  try {
    let n = 0;
    for (let i = 0; i < bursts; i++) {
      for (let k = 0; k < size; k++) {
        const candidate = `candidate:${n++} 1 udp 1 127.0.0.1 9 typ host`;
        customer.send(JSON.stringify({ type: "candidate", candidate: { candidate } }));
      }
      await new Promise((r) => setTimeout(r, 1000));
    }
    await new Promise((r) => setTimeout(r, 2000));
    const seen = new Set(got);
    let outOfOrder = 0;
    for (let i = 1; i < got.length; i++) if (got[i] < got[i - 1]) outOfOrder++;
    let lost = 0;
    for (let i = 0; i < n; i++) if (!seen.has(i)) lost++;
    return { sent: n, received: got.length, lost, outOfOrder };
  } finally {
    agent.close();
    customer.close();
  }
}
