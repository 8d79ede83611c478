import { orNotFound } from "@tidings/core";
import { commandNow, commandRunner, type Changed, type CommandDeps } from "@tidings/commands";
import {
  contactDecider,
  contactStream,
  type ContactFields,
  type ContactPropertyValue,
  type ContactTopicChoice,
  type LiveContact,
  type PropertyTypes,
} from "@tidings/domain";
import type { EventMetadata, EventStore } from "@tidings/eventstore";
import { contactPropertyTypes } from "./contactProperties.js";
import { findContact } from "./contactStreams.js";
import { findSegment } from "./segments.js";
import { findTopic } from "./topics.js";

export const existingContact = (store: EventStore, teamId: string, idOrEmail: string): Promise<LiveContact> =>
  orNotFound(findContact(store, teamId, idOrEmail), "Contact not found");

const run = commandRunner(contactStream, contactDecider);

export async function updateContact(
  deps: CommandDeps,
  teamId: string,
  idOrEmail: string,
  changes: Partial<ContactFields>,
  properties: Record<string, ContactPropertyValue | null>,
  metadata: EventMetadata,
  /** The types of the properties named, when the caller has them already (an import looks them up once). */
  knownTypes?: PropertyTypes,
): Promise<Changed> {
  const { contactId } = await existingContact(deps.store, teamId, idOrEmail);
  const propertyTypes = knownTypes ?? (await contactPropertyTypes(deps.store, teamId, Object.keys(properties)));
  return run(deps.store, contactId, { type: "UpdateContact", teamId, changes, properties, propertyTypes, now: commandNow(deps) }, metadata);
}

/** Only an add looks the segment up: a membership of a segment deleted since can still be removed. */
const segmentMembership =
  (type: "AddContactToSegment" | "RemoveContactFromSegment") =>
  async (deps: CommandDeps, teamId: string, idOrEmail: string, segmentId: string, metadata: EventMetadata): Promise<Changed> => {
    const { contactId } = await existingContact(deps.store, teamId, idOrEmail);
    if (type === "AddContactToSegment") await findSegment(deps.store, teamId, segmentId);
    return run(deps.store, contactId, { type, teamId, segmentId, now: commandNow(deps) }, metadata);
  };

export const addContactToSegment = segmentMembership("AddContactToSegment");
export const removeContactFromSegment = segmentMembership("RemoveContactFromSegment");

export async function updateContactTopics(
  deps: CommandDeps,
  teamId: string,
  idOrEmail: string,
  topics: ContactTopicChoice[],
  metadata: EventMetadata,
): Promise<Changed> {
  const { contactId } = await existingContact(deps.store, teamId, idOrEmail);
  await Promise.all(topics.map((t) => findTopic(deps.store, teamId, t.topicId)));
  return run(deps.store, contactId, { type: "UpdateContactTopics", teamId, topics, now: commandNow(deps) }, metadata);
}
