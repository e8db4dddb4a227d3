/**
 * Deadlines for test steps that may never settle (a wedged browser, a request that never
 * answers): the step's result, or an error naming the step, so a test fails instead of hanging
 * the suite (a hung test is never timed out by `deno test`).
 */

/** The error of a step that did not settle in time. */
export class Stalled extends Error {
  constructor(readonly what: string, readonly ms: number) {
    super(`${what}: no answer within ${ms / 1000} s`);
    this.name = "Stalled";
  }
}

/** `work`'s result; rejects with Stalled when it has not settled within `ms`. */
export async function within<T>(what: string, ms: number, work: Promise<T>): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Stalled(what, ms)), ms);
  });
  try {
    return await Promise.race([work, late]);
  } finally {
    clearTimeout(timer);
  }
}

/** Like `within`, for clean-up: a stall is logged (and answered false), never thrown. */
export async function tidy(what: string, ms: number, work: Promise<unknown>): Promise<boolean> {
  try {
    await within(what, ms, work);
    return true;
  } catch (error) {
    console.warn(`${new Date().toISOString()} ${error instanceof Error ? error.message : error}`);
    return false;
  }
}
