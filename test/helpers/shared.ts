/**
 * A fixture shared by the tests of one file: started on first use, closed after the file's last
 * test (Deno.test.afterAll), so independent tests share one service and any one can run alone.
 * Call it at module top level.
 */
export function sharedFixture<T>(
  start: () => Promise<T>,
  close: (value: T) => Promise<void>,
): () => Promise<T> {
  let started: Promise<T> | undefined;
  Deno.test.afterAll(async () => {
    if (started) await close(await started);
  });
  return () => (started ??= start());
}

let counter = 0;

/** A short id unique within the test process, for e-mails and external ids. */
export function uniqueId(prefix = "u"): string {
  counter += 1;
  return `${prefix}${counter}${crypto.randomUUID().slice(0, 6).replaceAll("-", "")}`;
}

/** How many times `target[method]` is called while `work` runs (the calls still go through). */
export async function callsDuring<K extends string>(
  target: { [k in K]: () => void },
  method: K,
  work: () => Promise<unknown>,
): Promise<number> {
  const original = target[method];
  let n = 0;
  target[method] = () => {
    n++;
    original.call(target);
  };
  try {
    await work();
  } finally {
    target[method] = original;
  }
  return n;
}
