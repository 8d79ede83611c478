import { deterministicId, formatTimestamp } from "@tidings/core";
import { DomainRejection } from "@tidings/commands";
import { contactErasureStream, contactStream, decideEraseContact, isDomainError } from "@tidings/domain";
import { WrongExpectedRevisionError, type EventMetadata, type EventStore, type Position } from "@tidings/eventstore";
import { isErasedText } from "@tidings/privacy";
import { contactEmailStream, findContact } from "./contactStreams.js";
import { eraseSubject, type ErasureDeps, type SubjectErasure } from "./eraseSubject.js";

/**
 * Erasure of a contact (docs/privacy.md): every address the contact ever had is erased as a data subject
 * (`eraseSubject`: its keys shredded, so mail to it, broadcast plans, webhook payloads and the contact's
 * own automation runs and events read as `erased:<tag>`), then `ContactErased`, which holds ids only,
 * goes to a stream of its own, so the read models drop the contact's rows and a replay shows that the
 * contact existed and was erased, not who it was. The contact's stream and its email reservation are
 * deleted too (docs/architecture.md §4): the contact's state lives there, and the reservation's name is
 * a plain hash of the address. Each step can be repeated: a DELETE retried after a crash finds the
 * contact still there and finishes.
 *
 * The copies outside the event store (read models, request logs) are the caller's to reach, with the
 * erasures returned.
 *
 * docs/wire-compatibility.md §6.8: deleting a contact that is not there answers as if it had been deleted.
 */
export async function eraseContact(
  deps: ErasureDeps,
  teamId: string,
  idOrEmail: string,
  metadata: EventMetadata,
): Promise<{ position?: Position; erased?: { contactId: string; email: string; subjects: SubjectErasure[] } }> {
  const contact = await findContact(deps.store, teamId, idOrEmail);
  if (!contact) return {};
  const stream = contactErasureStream(contact.contactId);
  const subjects: SubjectErasure[] = [];
  for (const address of await addressesOf(deps.store, contact.contactId)) {
    subjects.push(await eraseSubject(deps, teamId, { address, contactId: contact.contactId }, metadata, stream));
  }
  const erased = decideEraseContact(contact, teamId, formatTimestamp(deps.clock.now()));
  if (isDomainError(erased)) throw new DomainRejection(erased);
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
  return { position, erased: { contactId: contact.contactId, email: contact.email, subjects } };
}

/** Every address the contact's stream names, the current one and those it was changed from. */
async function addressesOf(store: EventStore, contactId: string): Promise<string[]> {
  const addresses = new Set<string>();
  for (const event of await store.readStream(contactStream(contactId))) {
    const email = (event.data as { email?: unknown }).email;
    if (typeof email === "string" && !isErasedText(email)) addresses.add(email.toLowerCase());
  }
  return [...addresses];
}
