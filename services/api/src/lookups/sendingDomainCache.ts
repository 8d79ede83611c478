import type { LiveDomain } from "@tidings/domain";
import type { EventStore } from "@tidings/eventstore";
import { domainHolding } from "./domainStreams.js";

/** How long a domain that let a send through is taken as still letting sends through. */
export const SENDING_DOMAIN_TTL_MS = 1_000;

export interface SendingDomainCache {
  /** The live domain holding `name` (undefined: nobody's), from the last second's passing answer or the event store. */
  holding(name: string): Promise<LiveDomain | undefined>;
  /** Keeps an answer that let a send through, for the sends right behind it. */
  passed(name: string, holder: LiveDomain | undefined): void;
}

/**
 * The sending domains the send path checks, kept for a second: sends come in bursts from a few `from`
 * domains, and reading a name's reservation stream and its domain's stream costs two round trips per send.
 * Only an answer that let a send through is kept, so a domain verified or enabled a moment ago is seen at
 * once; one disabled or deleted a moment ago may still be sent from for up to a second, as an email
 * accepted just before the change would have been.
 */
export function sendingDomainCache(store: EventStore, now: () => number = Date.now, ttlMs = SENDING_DOMAIN_TTL_MS): SendingDomainCache {
  const kept = new Map<string, { holder: LiveDomain | undefined; until: number }>();
  return {
    async holding(name) {
      const entry = kept.get(name);
      if (entry && entry.until > now()) return entry.holder;
      kept.delete(name);
      return domainHolding(store, name);
    },
    passed(name, holder) {
      if (kept.has(name)) return;
      // Bounded by the names sent from within one second; expired entries go as they are met.
      if (kept.size >= 10_000) kept.clear();
      kept.set(name, { holder, until: now() + ttlMs });
    },
  };
}
