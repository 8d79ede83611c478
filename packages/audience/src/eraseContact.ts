import { deterministicId, formatTimestamp, type Clock } from "@tidings/core";
import { DomainRejection } from "@tidings/commands";
import { contactErasureStream, contactStream, decideEraseContact, isDomainError } from "@tidings/domain";
import { WrongExpectedRevisionError, type EventMetadata, type EventStore, type Position } from "@tidings/eventstore";
import { contactEmailStream, findContact } from "./contactStreams.js";

type Deps = { store: EventStore; clock: Clock };

/**
 * Erasure (docs/architecture.md §4, by `deleteStream`): the person's data lives only in the contact's stream and its
 * email reservation, so deleting both removes it from the event store; `ContactErased`, which holds ids
 * only, goes to a stream of its own first, so the read models drop the rows and a replay shows that the
 * contact existed and was erased, not who it was. Each step can be repeated: a DELETE retried after a
 * crash finds the contact still there and finishes. Crypto-shredding was not chosen: projections are
 * synchronous and I/O-free, so they could not fetch a per-contact key to open sealed fields.
 *
 * docs/wire-compatibility.md §6.8: deleting a contact that is not there answers as if it had been deleted.
 */
export async function eraseContact(
  deps: Deps,
  teamId: string,
  idOrEmail: string,
  metadata: EventMetadata,
): Promise<{ position?: Position; erased?: { contactId: string; email: string } }> {
  const contact = await findContact(deps.store, teamId, idOrEmail);
  if (!contact) return {};
  const erased = decideEraseContact(contact, teamId, formatTimestamp(deps.clock.now()));
  if (isDomainError(erased)) throw new DomainRejection(erased);
  const stream = contactErasureStream(contact.contactId);
  let position: Position;
  try {
    ({ position } = await deps.store.append(
      stream,
      [{ id: deterministicId(stream, "erased"), type: erased.type, data: erased.data, metadata }],
      "no_stream",
    ));
  } catch (error) {
    if (!(error instanceof WrongExpectedRevisionError)) throw error;
    // Recorded by an earlier attempt that stopped before the deletions.
    position = (await deps.store.readStream(stream))[0]!.position;
  }
  await deps.store.deleteStream(contactStream(contact.contactId));
  await deps.store.deleteStream(contactEmailStream(teamId, contact.email));
  // Who was erased, for the caller to reach the copies it keeps outside the event store (the request logs).
  return { position, erased: { contactId: contact.contactId, email: contact.email } };
}
