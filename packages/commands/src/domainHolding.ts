import { domainDecider, domainStream, type DomainState, type LiveDomain } from "@tidings/domain";
import type { EventStore } from "@tidings/eventstore";
import { loadState } from "./loadState.js";
import { reservationStream, reservedBy } from "./reservation.js";

/**
 * The reservation stream of a domain name. It spans every team (docs/wire-compatibility.md §6.5: a name belongs to at most one
 * team), so its "team" part is a fixed word rather than a team id. Shared by the api's sends and the
 * automation runner's, which both need the domain a `from` is on.
 */
export const domainNameStream = (name: string) => reservationStream("all-teams", "domain-name", name);

export const loadDomain = (store: EventStore, domainId: string): Promise<DomainState> =>
  loadState(store, domainStream(domainId), domainDecider);

/** The live domain holding `name`, whichever team it belongs to. */
export async function domainHolding(store: EventStore, name: string): Promise<LiveDomain | undefined> {
  const owner = await reservedBy(store, domainNameStream(name));
  if (!owner) return undefined;
  const state = await loadDomain(store, owner);
  return state.status === "active" && state.name === name ? (state as LiveDomain) : undefined;
}
