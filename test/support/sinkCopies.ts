import type { ReceivedMessage } from "@tidings/testkit";
import { untilReached } from "./progress.js";

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
 * Waits until the sink holds `count` distinct messages, for as long as they keep coming (`untilReached`).
 * Resolves with the distinct count reached.
 */
export async function untilSinkHolds(received: ReceivedMessage[], count: number, stallMs = 90_000): Promise<number> {
  return (
    await untilReached(
      () => distinctMessageIds(received),
      (n) => n >= count,
      stallMs,
    )
  ).count;
}
