import { formatPosition, type RecordedEvent } from "@tidings/eventstore";
import { holds, type Projection } from "../engine/projection.js";
import { auditNames, eventTeamId, emailAddressIn, streamResourceId, type AuditRefKind } from "./auditNames.js";

/** Where and when the event that names a key is: the columns both audit tables share. */
const eventColumns = {
  stream_id: { type: "text" },
  revision: { type: "bigint" },
  event_id: { type: "uuid" },
  type: { type: "text" },
  position: { type: "text" },
  occurred_at: { type: "timestamptz", nullable: true },
  created_at: { type: "timestamptz" },
  team_id: { type: "uuid", nullable: true },
} as const;

function eventRow(event: RecordedEvent, teamId: string | undefined) {
  const occurredAt = event.metadata.occurredAt;
  return {
    stream_id: event.streamId,
    revision: event.revision,
    event_id: event.id,
    type: event.type,
    position: formatPosition(event.position),
    occurred_at: typeof occurredAt === "string" && !Number.isNaN(Date.parse(occurredAt)) ? occurredAt : null,
    created_at: event.createdAt,
    team_id: teamId ?? null,
  };
}

const isContactStream = (streamId: string) => streamId.startsWith("contact-");

/**
 * The audit index (docs/architecture.md §4, the audit index): which events name a key — a resource id, an
 * email address, a request, correlation or causation id — so `tidings audit find` and `GET /audit/…`
 * answer from it instead of scanning the log. Rows are only ever added: a stream deleted later keeps
 * its rows, which is how the index remembers that it existed.
 *
 * Except a contact's address, which is personal data and goes with the contact when it is erased. A
 * handler cannot look up the rows an erased contact's events left, so contact streams' addresses are not
 * in `audit_refs` but in `audit_contact_addresses`, one row per contact (its latest address), which the
 * erasure deletes by the contact's id.
 */
export const auditProjection = {
  name: "audit",
  version: 1,
  tables: {
    audit_refs: {
      columns: { key: { type: "text" }, kind: { type: "text", ...holds<AuditRefKind>() }, ...eventColumns },
      primaryKey: ["key", "event_id"],
      indexes: { by_key: "(key, created_at DESC, event_id DESC)" },
    },
    audit_contact_addresses: {
      columns: { contact_id: { type: "uuid" }, email: { type: "text" }, ...eventColumns },
      primaryKey: ["contact_id"],
      indexes: { by_email: "(email)" },
    },
  },
  handlers: {
    ContactErased(event, context) {
      const contactId = (event.data as { contactId: string }).contactId;
      context.delete("audit_contact_addresses", { contact_id: contactId });
    },
    "*"(event, context) {
      const teamId = eventTeamId(event);
      const row = eventRow(event, teamId);
      const contact = isContactStream(event.streamId);
      for (const { key, kind } of auditNames(event, teamId, !contact)) context.upsert("audit_refs", { key, kind, ...row });
      const email = (event.data as { email?: unknown } | null)?.email;
      const address = contact && typeof email === "string" ? emailAddressIn(email) : undefined;
      const contactId = streamResourceId(event.streamId);
      if (address && contactId) context.upsert("audit_contact_addresses", { contact_id: contactId, email: address, ...row });
    },
  },
} satisfies Projection;
