import { claimHeldWhile, loadDomain, loadLive, type ReserveOptions } from "@tidings/commands";
import { domainDecider, domainStream, type LiveDomain } from "@tidings/domain";
import type { EventStore } from "@tidings/eventstore";

export { domainHolding, domainNameStream, loadDomain } from "@tidings/commands";

/** A live domain of the team, read from its stream so a write right after another never acts on a stale row. */
export const findDomain = (store: EventStore, teamId: string, domainId: string): Promise<LiveDomain | undefined> =>
  loadLive(store, teamId, domainId, domainStream, domainDecider);

/** A name's claim holds while its domain lives with that name. */
export const nameClaimCheck = (store: EventStore, name: string, now: () => Date): ReserveOptions =>
  claimHeldWhile(
    (ownerId) => loadDomain(store, ownerId),
    (domain) => domain.status === "active" && domain.name === name,
    now,
  );
