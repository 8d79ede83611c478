import type { ContactErased, ContactEvent } from "@tidings/domain";
import { holds, type BatchContext, type ColumnDefinition, type Projection, type TableDefinition } from "../engine/projection.js";
import { handlersOf, type EventData } from "../engine/typedHandlers.js";
import { teamResourceTable } from "./teamResourceTable.js";

const personColumns = (data: EventData<ContactEvent, "ContactCreated" | "ContactUpdated">) => ({
  email: data.email,
  first_name: data.firstName,
  last_name: data.lastName,
  unsubscribed: data.unsubscribed,
  properties: data.properties,
});

/** A table of what contacts are linked to (segments, topics): a row per contact and linked id, the team beside them. */
function contactLinkTable<Linked extends string, Columns extends Record<string, ColumnDefinition>>(linked: Linked, columns: Columns) {
  const keyColumns = { contact_id: { type: "uuid" }, [linked]: { type: "uuid" }, team_id: { type: "uuid" } } as {
    contact_id: { type: "uuid" };
    team_id: { type: "uuid" };
  } & Record<Linked, { type: "uuid" }>;
  return { columns: { ...keyColumns, ...columns }, primaryKey: ["contact_id", linked] } satisfies TableDefinition;
}

function joinSegment(context: BatchContext, contact: { contactId: string; teamId: string }, segmentId: string, at: string) {
  context.upsert("contact_segments", { contact_id: contact.contactId, segment_id: segmentId, team_id: contact.teamId, added_at: at });
}

function topicChoices(
  context: BatchContext,
  contactId: string,
  teamId: string,
  topics: EventData<ContactEvent, "ContactTopicsUpdated">["topics"],
) {
  for (const { topicId, subscription } of topics)
    context.upsert("contact_topics", { contact_id: contactId, topic_id: topicId, team_id: teamId, subscription });
}

/**
 * Contacts, their segment memberships and their own topic choices. A topic a contact never chose is
 * absent from `contact_topics`; readers take the topic's default. Rows of a deleted segment or topic stay
 * and readers join them away: the segment's stream does not know its members.
 */
/**
 * What `GET /contacts?search=` matches: the address and the name. `||` and coalesce, not concat_ws, since
 * an index expression must be immutable and concat_ws is only stable.
 */
export const contactSearchText = `(email || E'\\n' || coalesce(first_name, '') || ' ' || coalesce(last_name, ''))`;

export const contactsProjection = {
  name: "contacts",
  // 2: the `search` index.
  version: 2,
  tables: {
    contacts: teamResourceTable({
      columns: {
        email: { type: "text" },
        first_name: { type: "text", nullable: true },
        last_name: { type: "text", nullable: true },
        unsubscribed: { type: "boolean" },
        properties: { type: "jsonb", ...holds<EventData<ContactEvent, "ContactCreated">["properties"]>() },
        created_at: { type: "timestamptz" },
        updated_at: { type: "timestamptz" },
      },
      indexes: {
        by_email: "(team_id, email)",
        // A trigram index (pg_trgm), as the emails' search has: part of an address or a name reads a few
        // index pages, not every contact of the team.
        search: `USING gin (${contactSearchText} gin_trgm_ops)`,
      },
    }),
    contact_segments: {
      ...contactLinkTable("segment_id", { added_at: { type: "timestamptz" } }),
      indexes: { by_segment: "(segment_id, contact_id)" },
    },
    contact_topics: contactLinkTable("topic_id", { subscription: { type: "text" } }),
  },
  handlers: handlersOf<ContactEvent | ContactErased>({
    ContactCreated(data, context) {
      context.upsert("contacts", {
        id: data.contactId,
        team_id: data.teamId,
        ...personColumns(data),
        created_at: data.createdAt,
        updated_at: data.createdAt,
      });
      for (const segmentId of data.segmentIds) joinSegment(context, data, segmentId, data.createdAt);
      topicChoices(context, data.contactId, data.teamId, data.topics);
    },
    ContactUpdated(data, context) {
      context.update("contacts", { id: data.contactId }, { ...personColumns(data), updated_at: data.updatedAt });
    },
    ContactAddedToSegment(data, context) {
      joinSegment(context, data, data.segmentId, data.addedAt);
    },
    ContactRemovedFromSegment(data, context) {
      context.delete("contact_segments", { contact_id: data.contactId, segment_id: data.segmentId });
    },
    ContactTopicsUpdated(data, context) {
      topicChoices(context, data.contactId, data.teamId, data.topics);
    },
    /** The person leaves every read model; a replay meets this event after nothing (their stream is gone). */
    ContactErased({ contactId, segmentIds, topicIds }, context) {
      context.delete("contacts", { id: contactId });
      for (const segmentId of segmentIds) context.delete("contact_segments", { contact_id: contactId, segment_id: segmentId });
      for (const topicId of topicIds) context.delete("contact_topics", { contact_id: contactId, topic_id: topicId });
    },
  }),
} satisfies Projection;
