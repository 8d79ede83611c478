import { formatTimestamp, newId, TidingsError, type Clock } from "@tidings/core";
import { changed, claimAlongside, decideCreate, handleCommand, release, reserve, type Changed } from "@tidings/commands";
import {
  contactDecider,
  contactStream,
  type ContactCommand,
  type ContactFields,
  type ContactPropertyValue,
  type ContactTopicChoice,
  type PropertyTypes,
} from "@tidings/domain";
import type { EventMetadata, EventStore } from "@tidings/eventstore";
import { contactPropertyTypes } from "./contactProperties.js";
import { contactEmailStream, emailClaimCheck } from "./contactStreams.js";
import { findSegment } from "./segments.js";
import { findTopic } from "./topics.js";

type Deps = { store: EventStore; clock: Clock };

export interface NewContact {
  email: string;
  fields: ContactFields;
  properties: Record<string, ContactPropertyValue | null>;
  segmentIds: string[];
  topics: ContactTopicChoice[];
  /** The types of the properties named, when the caller has them already (an import looks them up once). */
  propertyTypes?: PropertyTypes;
}

/**
 * Checks the input, then claims the email, then records the contact; a failure after the claim gives it
 * back. A taken email is 409 (docs/wire-compatibility.md §6.8 leaves it undocumented; the issue asks for a conflict).
 */
export async function createContact(
  deps: Deps,
  teamId: string,
  input: NewContact,
  metadata: EventMetadata,
  /** Given by a caller that must create the same contact when it runs again (the import saga). */
  contactId: string = newId(),
): Promise<Changed> {
  const command: ContactCommand = {
    type: "CreateContact",
    contactId,
    teamId,
    email: input.email,
    fields: input.fields,
    properties: input.properties,
    propertyTypes: input.propertyTypes ?? (await contactPropertyTypes(deps.store, teamId, Object.keys(input.properties))),
    segmentIds: input.segmentIds,
    topics: input.topics,
    now: formatTimestamp(deps.clock.now()),
  };
  const verdict = decideCreate(contactDecider, command);
  await Promise.all([
    ...input.segmentIds.map((id) => findSegment(deps.store, teamId, id)),
    ...input.topics.map((t) => findTopic(deps.store, teamId, t.topicId)),
  ]);
  const stream = contactEmailStream(teamId, input.email);
  // Most emails a create names are new: claiming the email and writing the contact in one appendMany,
  // without reading first, is one round trip; a taken email or an existing contact takes the slow way.
  const created = verdict.map((event) => ({ id: newId(), type: event.type, data: event.data, metadata }));
  const fast = await claimAlongside(deps.store, stream, contactId, metadata, [
    { streamId: contactStream(contactId), events: created, expectedRevision: "no_stream" },
  ]);
  if (fast) return { id: contactId, position: fast[0]!.position };
  const claim = await reserve(
    deps.store,
    stream,
    contactId,
    metadata,
    emailClaimCheck(deps.store, teamId, input.email, () => deps.clock.now()),
  );
  if (!claim.won) throw new TidingsError("contact_exists", `A contact with \`email\` \`${input.email.trim()}\` already exists.`);
  try {
    const { position } = await handleCommand({
      store: deps.store,
      streamId: contactStream(contactId),
      decider: contactDecider,
      command,
      metadata,
    });
    return changed(contactId, position);
  } catch (error) {
    await release(deps.store, stream, contactId, metadata);
    throw error;
  }
}
