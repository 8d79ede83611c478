import { isUuid } from "@tidings/core";
import { loadDomain, type ReserveOptions } from "@tidings/commands";
import type { DomainState, LiveDomain } from "@tidings/domain";
import type { EventStore } from "@tidings/eventstore";

export { domainHolding, domainNameStream, loadDomain } from "@tidings/commands";

const isLive = (state: DomainState, teamId: string): state is LiveDomain => state.status === "active" && state.teamId === teamId;

/** A live domain of the team, read from its stream so a write right after another never acts on a stale row. */
export async function findDomain(store: EventStore, teamId: string, domainId: string): Promise<LiveDomain | undefined> {
  if (!isUuid(domainId)) return undefined;
  const state = await loadDomain(store, domainId);
  return isLive(state, teamId) ? state : undefined;
}

/** How long a claim whose domain does not exist yet counts as a create still under way. */
const claimGraceMs = 60_000;

/** A name's claim holds while its domain lives; one left by a process that died mid-create is taken over after a minute. */
export function nameClaimCheck(store: EventStore, name: string, now: () => Date): ReserveOptions {
  return {
    async stillHeld(ownerId, claimedAt) {
      const state = await loadDomain(store, ownerId);
      if (state.status === "none") return now().getTime() - claimedAt.getTime() < claimGraceMs;
      return state.status === "active" && state.name === name;
    },
  };
}
