import { setTimeout as sleep } from "node:timers/promises";

/**
 * Waits until `measure` (a count that only grows: rows imported, messages received) satisfies `done`, for
 * as long as it keeps growing: it gives up only when the count stood still for `stallMs`, so a loaded
 * machine that works slowly still passes, while work that stopped fails in a bounded time. Resolves with
 * whether `done` was reached, and the last count.
 */
export async function untilReached(
  measure: () => number | Promise<number>,
  done: (count: number) => boolean,
  stallMs = 90_000,
): Promise<{ reached: boolean; count: number }> {
  let count = await measure();
  let lastProgress = Date.now();
  while (!done(count)) {
    if (Date.now() - lastProgress > stallMs) return { reached: false, count };
    await sleep(100);
    const now = await measure();
    if (now > count) lastProgress = Date.now();
    count = now;
  }
  return { reached: true, count };
}
