import type { EventStore, RecordedEvent } from "@tidings/eventstore";
import type { ContentKind } from "./dataKeys.js";
import { keyIdsOf, parseRef } from "./keyRefs.js";
import { groupsOfEvent } from "./openEvents.js";

/**
 * Which subjects each stream's content was sealed for, by kind: what `Sealing.streamContent` adds to a
 * later event's content (an open of an email is its recipients'). Learnt from the stored events this
 * process reads or appends, since a command reads its stream before it appends to it; a stream not seen
 * lately is read from the store once.
 */
export interface StreamSubjects {
  /**
   * Notes the subjects of these stored (sealed) events of a stream: all of its events (`whole`), or the
   * latest, which are noted only for a stream already known.
   */
  learn(streamId: string, events: readonly Pick<RecordedEvent, "type" | "data">[], whole: boolean): void;
  of(streamId: string, kind: ContentKind): Promise<string[]>;
}

export function createStreamSubjects(stored: EventStore, capacity = 10_000): StreamSubjects {
  const known = new Map<string, Map<ContentKind, Set<string>>>();
  const learn = (streamId: string, events: readonly Pick<RecordedEvent, "type" | "data">[], whole: boolean) => {
    let kinds = known.get(streamId);
    if (!kinds && !whole) return;
    for (const event of events) {
      for (const group of groupsOfEvent(event)) {
        const ref = parseRef(group.k);
        if (!ref || "subject" in ref) continue;
        kinds ??= new Map();
        const ids = kinds.get(ref.kind) ?? new Set<string>();
        for (const id of keyIdsOf(ref).slice(1)) ids.add(id);
        kinds.set(ref.kind, ids);
      }
    }
    // Most recently used last: a Map keeps insertion order, so the first entry is the one to forget.
    known.delete(streamId);
    known.set(streamId, kinds ?? new Map());
    if (known.size > capacity) known.delete(known.keys().next().value!);
  };
  return {
    learn,
    async of(streamId, kind) {
      if (!known.has(streamId)) learn(streamId, await stored.readStream(streamId), true);
      return [...(known.get(streamId)?.get(kind) ?? [])];
    },
  };
}
