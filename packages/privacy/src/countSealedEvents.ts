import { START, type EventStore, type Position } from "@tidings/eventstore";
import { collectKeyIds } from "./openEvents.js";
import { sealingPlanOf } from "./personalData.js";

/**
 * How many stored events hold a value sealed under one of these keys: what an erasure made unreadable,
 * for `tidings erase` to report. It reads the whole store as kept, sealed, a page at a time; there is
 * no index from a key to its events, since every append would have to write one.
 */
export async function countSealedEvents(stored: EventStore, keyIds: readonly string[]): Promise<number> {
  const wanted = new Set(keyIds);
  if (wanted.size === 0) return 0;
  let count = 0;
  let after: Position = START;
  for (;;) {
    const page = await stored.readAll({ after, maxCount: 2_000 });
    if (page.length === 0) return count;
    for (const event of page) {
      if (!sealingPlanOf(event.type)) continue;
      const ids: string[] = [];
      collectKeyIds(event.data, ids);
      if (ids.some((id) => wanted.has(id))) count++;
    }
    after = page.at(-1)!.position;
  }
}
