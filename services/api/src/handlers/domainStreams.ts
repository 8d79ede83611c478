import { isUuid } from "@tidings/core";
import { loadState, reservationStream, reservedBy, type ReserveOptions } from "@tidings/commands";
import { domainDecider, domainStream, type DomainState, type LiveDomain } from "@tidings/domain";
import type { EventStore } from "@tidings/eventstore";

/**
 * The reservation stream of a domain name. It spans every team (issue #5: a name belongs to at most one
 * team), so its "team" part is a fixed word rather than a team id.
 */
export const domainNameStream = (name: string) => reservationStream("all-teams", "domain-name", name);

export const loadDomain = (store: EventStore, domainId: string): Promise<DomainState> => loadState(store, domainStream(domainId), domainDecider);

const isLive = (state: DomainState, teamId: string): state is LiveDomain => state.status === "active" && state.teamId === teamId;

/** A live domain of the team, read from its stream so a write right after another never acts on a stale row. */
export async function findDomain(store: EventStore, teamId: string, domainId: string): Promise<LiveDomain | undefined> {
  if (!isUuid(domainId)) return undefined;
  const state = await loadDomain(store, domainId);
  return isLive(state, teamId) ? state : undefined;
}

/** The live domain holding `name`, whichever team it belongs to. */
export async function domainHolding(store: EventStore, name: string): Promise<LiveDomain | undefined> {
  const owner = await reservedBy(store, domainNameStream(name));
  if (!owner) return undefined;
  const state = await loadDomain(store, owner);
  return state.status === "active" && state.name === name ? (state as LiveDomain) : undefined;
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
