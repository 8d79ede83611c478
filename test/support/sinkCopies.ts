import { setTimeout as sleep } from "node:timers/promises";
import type { ReceivedMessage } from "@tidings/testkit";

/** How many different messages the sink received: its copies counted once per Message-ID. */
export const distinctMessageIds = (received: ReceivedMessage[]): number => new Set(received.map((m) => m.messageId)).size;

/**
 * For each copy the sink received again under a Message-ID it already had, when it received the first
 * copy (ms since the epoch): a repeat is only allowed when its first copy came before a kill.
 */
export function firstCopiesOfRepeats(received: ReceivedMessage[]): number[] {
  const firstCopies = new Map<string, number>();
  const repeats: number[] = [];
  for (const m of received) {
    const first = firstCopies.get(m.messageId!);
    if (first === undefined) firstCopies.set(m.messageId!, m.receivedAt.getTime());
    else repeats.push(first);
  }
  return repeats;
}

/**
 * Waits until the sink holds `count` distinct messages, for as long as they keep coming: it gives up only
 * when none arrived for `stallMs`, so a loaded machine that delivers slowly still passes, while mail that
 * stopped flowing fails in a bounded time. Resolves with the distinct count reached.
 */
export async function untilSinkHolds(received: ReceivedMessage[], count: number, stallMs = 90_000): Promise<number> {
  let reached = distinctMessageIds(received);
  let lastProgress = Date.now();
  while (reached < count && Date.now() - lastProgress < stallMs) {
    await sleep(200);
    const now = distinctMessageIds(received);
    if (now > reached) lastProgress = Date.now();
    reached = now;
  }
  return reached;
}
