import { formatTimestamp, newId, TidingsError, type Clock } from "@tidings/core";
import { createContact, findContact } from "@tidings/audience";
import { checkEventPayload, customEventStream, type CustomEventReceived, type LiveContact } from "@tidings/domain";
import type { EventMetadata, EventStore, Position } from "@tidings/eventstore";
import { findEventDefinition } from "../lookups/eventDefinitionStreams.js";

type Deps = { store: EventStore; clock: Clock };

export interface CustomEventInput {
  event: string;
  contactId?: string | undefined;
  email?: string | undefined;
  payload: Record<string, unknown>;
}

/**
 * The contact an event is sent for, given what the lookup by id or email found: an unknown id is refused,
 * an email the team has never seen gets a new contact. Two sends racing to create the same
 * email both end with the one contact.
 */
async function contactFor(
  deps: Deps,
  teamId: string,
  input: CustomEventInput,
  found: LiveContact | undefined,
  metadata: EventMetadata,
): Promise<{ id: string; created?: Position }> {
  if (found) return { id: found.contactId };
  if (input.contactId !== undefined) {
    throw new TidingsError("validation_error", `The \`contact_id\` \`${input.contactId}\` names no contact of this team.`);
  }
  const email = input.email!;
  for (let attempt = 1; ; attempt++) {
    if (attempt > 1) {
      const raced = await findContact(deps.store, teamId, email);
      if (raced) return { id: raced.contactId };
    }
    try {
      const fields = { firstName: null, lastName: null, unsubscribed: false };
      const { id, position } = await createContact(deps, teamId, { email, fields, properties: {}, segmentIds: [], topics: [] }, metadata);
      return position ? { id, created: position } : { id };
    } catch (error) {
      if (!(error instanceof TidingsError && error.code === "contact_exists") || attempt >= 3) throw error;
    }
  }
}

export interface SentCustomEvent {
  id: string;
  /** Where the contact the send created landed, for read-your-writes; undefined when it existed. */
  contactCreated?: Position;
}

/**
 * Records one received custom event in a stream of its own; the automation runner reacts to it. An unknown
 * event name or a payload its schema refuses is a 422 naming what is wrong, and nothing is written.
 */
export async function sendCustomEvent(
  deps: Deps,
  teamId: string,
  input: CustomEventInput,
  metadata: EventMetadata,
): Promise<SentCustomEvent> {
  // Both lookups at once: they are independent, and a send is mostly these round trips.
  const [definition, found] = await Promise.all([
    findEventDefinition(deps.store, teamId, input.event),
    findContact(deps.store, teamId, input.contactId ?? input.email!),
  ]);
  if (!definition)
    throw new TidingsError("validation_error", `The \`event\` \`${input.event}\` is not defined. Create it with POST /events first.`);
  const invalid = checkEventPayload(definition.schema, input.payload);
  if (invalid) throw new TidingsError(invalid.name, invalid.message);
  const contact = await contactFor(deps, teamId, input, found, metadata);
  const contactId = contact.id;
  const receivedEventId = newId();
  const event: CustomEventReceived = {
    type: "CustomEventReceived",
    data: {
      receivedEventId,
      teamId,
      eventDefId: definition.eventDefId,
      name: definition.name,
      contactId,
      payload: input.payload,
      receivedAt: formatTimestamp(deps.clock.now()),
    },
  };
  await deps.store.append(
    customEventStream(receivedEventId),
    [{ id: receivedEventId, type: event.type, data: event.data, metadata }],
    "no_stream",
  );
  return contact.created ? { id: receivedEventId, contactCreated: contact.created } : { id: receivedEventId };
}
