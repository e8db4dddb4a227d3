/**
 * Where the server allocates per request: V8's sampling heap profiler, driven through the
 * inspector protocol of a server started with `--inspect`, counting every sampled allocation
 * during the load run, those the garbage collector has already freed included (short-lived
 * garbage is what the collector's time per request pays for). V8 scales its samples to estimated
 * bytes, so the totals are estimates of everything allocated, not only what stays alive.
 */
import { areaOf, frameName } from "./cpu_profile.ts";

interface HeapNode {
  callFrame: { functionName: string; url: string; lineNumber: number };
  selfSize: number;
  children: HeapNode[];
}

/** Bytes allocated by one function or area (self: the allocating frame). */
export interface Allocated {
  name: string;
  bytes: number;
}

/** Bytes allocated per function and per area of the code, and in all. */
export interface Allocations {
  functions: Allocated[];
  areas: Allocated[];
  bytes: number;
}

/**
 * One inspector connection: `call` sends a command and resolves with its result; a call fails
 * when the connection closes first or no answer comes within a minute.
 */
async function inspector(port: number) {
  const targets = await (await fetch(`http://127.0.0.1:${port}/json/list`)).json();
  const socket = new WebSocket(targets[0].webSocketDebuggerUrl);
  await new Promise((resolve, reject) => {
    socket.onopen = resolve;
    socket.onerror = () => reject(new Error(`no inspector on 127.0.0.1:${port}`));
  });
  let next = 0;
  const waiting = new Map<number, (message: { result?: unknown; error?: unknown }) => void>();
  socket.onmessage = (e) => {
    const message = JSON.parse(e.data);
    waiting.get(message.id)?.(message);
    waiting.delete(message.id);
  };
  socket.onclose = () => {
    for (const answer of waiting.values()) answer({ error: "the inspector connection closed" });
    waiting.clear();
  };
  const call = (method: string, params: Record<string, unknown> = {}) =>
    new Promise<unknown>((resolve, reject) => {
      const id = ++next;
      const timer = setTimeout(() => {
        waiting.delete(id);
        reject(new Error(`${method}: no answer from the inspector within 60 s`));
      }, 60_000);
      waiting.set(id, (m) => {
        clearTimeout(timer);
        if (m.error) reject(new Error(`${method}: ${JSON.stringify(m.error)}`));
        else resolve(m.result);
      });
      socket.send(JSON.stringify({ id, method, params }));
    });
  return { call, close: () => socket.close() };
}

/**
 * Starts sampling the allocations of the process whose inspector listens on `port` (one sample
 * per `intervalBytes` on average); the function returned stops and reads the samples.
 */
export async function sampleAllocations(
  port: number,
  intervalBytes = 4096,
): Promise<() => Promise<Allocations>> {
  const session = await inspector(port);
  await session.call("HeapProfiler.enable");
  await session.call("HeapProfiler.startSampling", {
    samplingInterval: intervalBytes,
    includeObjectsCollectedByMajorGC: true,
    includeObjectsCollectedByMinorGC: true,
  });
  return async () => {
    try {
      const { profile } = await session.call("HeapProfiler.stopSampling") as {
        profile: { head: HeapNode };
      };
      return allocationCosts(profile.head);
    } finally {
      session.close();
    }
  };
}

/** Self bytes per function (name, file, line) and per area, from a sampling profile's tree. */
export function allocationCosts(head: HeapNode): Allocations {
  const fn = new Map<string, number>();
  const area = new Map<string, number>();
  let bytes = 0;
  const walk = (node: HeapNode) => {
    if (node.selfSize > 0) {
      bytes += node.selfSize;
      const key = frameName(node.callFrame);
      fn.set(key, (fn.get(key) ?? 0) + node.selfSize);
      const a = areaOf(node.callFrame.url, node.callFrame.functionName);
      area.set(a, (area.get(a) ?? 0) + node.selfSize);
    }
    for (const child of node.children) walk(child);
  };
  walk(head);
  const sorted = (m: Map<string, number>) =>
    [...m].map(([name, bytes]) => ({ name, bytes })).sort((a, b) => b.bytes - a.bytes);
  return { functions: sorted(fn), areas: sorted(area), bytes };
}

/** A markdown table of the top `n` allocators: bytes per request and share of all bytes. */
export function allocationTable(
  title: string,
  list: Allocated[],
  bytes: number,
  requests: number,
  n = 15,
): string {
  const rows = list.slice(0, n).map((c) =>
    `| ${c.name.replaceAll("|", "\\|")} | ${(c.bytes / requests / 1024).toFixed(2)} | ${
      (100 * c.bytes / bytes).toFixed(1)
    } % |`
  );
  return [`| ${title} | KiB per request | share |`, "|---|---:|---:|", ...rows].join("\n");
}
