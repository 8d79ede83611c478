import { isUuid } from "@tidings/core";
import { claimHeldWhile, loadState, reservationStream, reservedBy, type ReserveOptions } from "@tidings/commands";
import { contactDecider, contactStream, isLiveFor, normalContactEmail, type ContactState, type LiveContact } from "@tidings/domain";
import type { EventStore } from "@tidings/eventstore";

/** The reservation stream that makes an email one contact per team (docs/architecture.md §1), and turns it into the contact. */
export const contactEmailStream = (teamId: string, email: string) => reservationStream(teamId, "contact-email", normalContactEmail(email));

export const loadContact = (store: EventStore, contactId: string): Promise<ContactState> =>
  loadState(store, contactStream(contactId), contactDecider);

/**
 * A live contact of the team, named by id or email (docs/wire-compatibility.md §6.8: the path is either), read from the
 * event store so that a write right after another write never acts on a stale row.
 */
export async function findContact(store: EventStore, teamId: string, idOrEmail: string): Promise<LiveContact | undefined> {
  if (isUuid(idOrEmail)) {
    const byId = await loadContact(store, idOrEmail);
    if (isLiveFor(byId, teamId)) return byId;
    return undefined;
  }
  const owner = await reservedBy(store, contactEmailStream(teamId, idOrEmail));
  if (!owner) return undefined;
  const byEmail = await loadContact(store, owner);
  return isLiveFor(byEmail, teamId) && byEmail.email === normalContactEmail(idOrEmail) ? byEmail : undefined;
}

/** A claim holds while its contact lives with that email; one left by an erasure that stopped halfway is taken over too. */
export const emailClaimCheck = (store: EventStore, teamId: string, email: string, now: () => Date): ReserveOptions =>
  claimHeldWhile(
    (ownerId) => loadContact(store, ownerId),
    (contact) => isLiveFor(contact, teamId) && contact.email === normalContactEmail(email),
    now,
  );
