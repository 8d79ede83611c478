import { START, type EventStore, type Position } from "@tidings/eventstore";
import { keyIdsOf, parseRef } from "./keyRefs.js";
import { groupsOfEvent } from "./openEvents.js";

/**
 * How many stored events hold a value sealed under one of these keys, or under a key derived from one:
 * what an erasure made unreadable, for `tidings erase` to report. It reads the whole store as kept,
 * sealed, a page at a time; there is no index from a key to its events, since every append would have
 * to write one.
 */
export async function countSealedEvents(stored: EventStore, keyIds: readonly string[]): Promise<number> {
  const wanted = new Set(keyIds);
  if (wanted.size === 0) return 0;
  const refsFound = new Map<string, boolean>();
  const names = (ref: string) => {
    let found = refsFound.get(ref);
    if (found === undefined) {
      if (refsFound.size > 100_000) refsFound.clear();
      const parsed = parseRef(ref);
      refsFound.set(ref, (found = parsed !== undefined && keyIdsOf(parsed).some((id) => wanted.has(id))));
    }
    return found;
  };
  let count = 0;
  let after: Position = START;
  for (;;) {
    const page = await stored.readAll({ after, maxCount: 2_000 });
    if (page.length === 0) return count;
    for (const event of page) if (groupsOfEvent(event).some((group) => names(group.k))) count++;
    after = page.at(-1)!.position;
  }
}
