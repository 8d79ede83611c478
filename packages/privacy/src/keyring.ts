import { newestEntries } from "@tidings/core";
import type { DataKeys } from "./dataKeys.js";
import { deriveContentKey, keyIdsOf, parseRef, type ParsedRef } from "./keyRefs.js";

/**
 * Turns key references into keys (keyRefs.ts): the stored keys they name, fetched together (from the
 * key table's cache when it holds them, so a shred reaches them as it reaches any key), and the content
 * keys derived from them, derived once while their stored keys last.
 */
export interface Keyring {
  keys: DataKeys;
  /** Each reference's key, or undefined where any key it needs was shredded. One lookup for them all. */
  open(refs: Iterable<string>): Promise<Map<string, Buffer | undefined>>;
  /** The key of a reference whose stored keys are at hand, by id. */
  derive(ref: string, stored: Map<string, Buffer>): Buffer | undefined;
}

export function createKeyring(keys: DataKeys, derivedCapacity = 10_000): Keyring {
  // By key reference, with the stored keys it came from: a stored key made again (after an erasure) has other
  // bytes, so they are compared by value (the key table's cache may hand the same key in another Buffer).
  let derived = new Map<string, { key: Buffer; from: Buffer[] }>();
  const derive = (ref: string, parsed: ParsedRef | undefined, stored: Map<string, Buffer>): Buffer | undefined => {
    if (!parsed) return undefined;
    if ("subject" in parsed) return stored.get(parsed.subject);
    const from = keyIdsOf(parsed).map((id) => stored.get(id));
    if (from.some((key) => !key)) return undefined;
    const hit = derived.get(ref);
    if (hit && hit.from.every((key, i) => key.equals(from[i]!))) {
      // Most recently used last: a trim keeps the newest.
      derived.delete(ref);
      derived.set(ref, hit);
      return hit.key;
    }
    const [period, ...subjects] = from as Buffer[];
    const key = deriveContentKey(ref, period!, subjects);
    derived.delete(ref);
    derived.set(ref, { key, from: from as Buffer[] });
    // A content key per recipient: a broadcast's recipients come once each, so a large cache only holds
    // keys nobody asks for again (100,000 of them were ~25 MB of live heap in each role).
    if (derived.size > 2 * derivedCapacity) derived = newestEntries(derived, derivedCapacity);
    return key;
  };
  return {
    keys,
    async open(refs) {
      const parsed = new Map<string, ParsedRef | undefined>();
      for (const ref of refs) if (!parsed.has(ref)) parsed.set(ref, parseRef(ref));
      const stored = await keys.open([...parsed.values()].flatMap((one) => (one ? keyIdsOf(one) : [])));
      return new Map([...parsed].map(([ref, one]) => [ref, derive(ref, one, stored)]));
    },
    derive: (ref, stored) => derive(ref, parseRef(ref), stored),
  };
}
