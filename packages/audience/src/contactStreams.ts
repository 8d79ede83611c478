import { isUuid } from "@tidings/core";
import { reservationStream, reservedBy, type ReserveOptions } from "@tidings/commands";
import { contactDecider, contactStream, normalContactEmail, type ContactState, type LiveContact } from "@tidings/domain";
import type { EventStore } from "@tidings/eventstore";
import { loadAggregate } from "./loadAggregate.js";

/** The reservation stream that makes an email one contact per team (DESIGN §1), and turns it into the contact. */
export const contactEmailStream = (teamId: string, email: string) => reservationStream(teamId, "contact-email", normalContactEmail(email));

export const loadContact = (store: EventStore, contactId: string): Promise<ContactState> => loadAggregate(store, contactStream(contactId), contactDecider);

const isLive = (state: ContactState, teamId: string): state is LiveContact => state.status === "active" && state.teamId === teamId;

/**
 * A live contact of the team, named by id or email (reference §6.8: the path is either), read from the
 * event store so that a write right after another write never acts on a stale row.
 */
export async function findContact(store: EventStore, teamId: string, idOrEmail: string): Promise<LiveContact | undefined> {
  if (isUuid(idOrEmail)) {
    const byId = await loadContact(store, idOrEmail);
    if (isLive(byId, teamId)) return byId;
    return undefined;
  }
  const owner = await reservedBy(store, contactEmailStream(teamId, idOrEmail));
  if (!owner) return undefined;
  const byEmail = await loadContact(store, owner);
  return isLive(byEmail, teamId) && byEmail.email === normalContactEmail(idOrEmail) ? byEmail : undefined;
}

/** How long a claim whose contact does not exist yet counts as a create still under way. */
const claimGraceMs = 60_000;

/**
 * A claim holds while its contact lives with that email. One left by a process that died after claiming
 * and before creating, or during an erasure, is taken over by the next claimant.
 */
export function emailClaimCheck(store: EventStore, teamId: string, email: string, now: () => Date): ReserveOptions {
  return {
    async stillHeld(ownerId, claimedAt) {
      const state = await loadContact(store, ownerId);
      if (state.status === "none") return now().getTime() - claimedAt.getTime() < claimGraceMs;
      return isLive(state, teamId) && state.email === normalContactEmail(email);
    },
  };
}
