import { sql } from "kysely";
import { TidingsError } from "@tidings/core";
import { personalizeBroadcast } from "@tidings/domain";
import type { Database } from "@tidings/postgres";
import { getContact } from "./contacts.js";
import type { WireBroadcast } from "./broadcasts.js";

/** `GET /broadcasts/:id/preview` (docs/wire-compatibility.md §6.11): the broadcast as one contact would receive it. */
export interface BroadcastPreview {
  object: "broadcast_preview";
  broadcast_id: string;
  contact_id: string;
  to: string;
  from: string | null;
  subject: string;
  html: string | null;
  text: string | null;
}

/**
 * The unsubscribe link a preview shows. The real one is signed per recipient when the email is made; a
 * preview must not carry one that works, or a click on it would unsubscribe the contact.
 */
export const previewUnsubscribeUrl = "#unsubscribe-link-of-the-recipient";

/**
 * The broadcast rendered for one contact of its segment (by id or email) by the broadcast saga's own
 * `personalizeBroadcast`, from the same read models the fan-out reads: the contact's fields and properties,
 * and each property's fallback. Only a contact of the segment is previewed, since no one else would get it.
 */
export async function previewBroadcast(
  database: Database,
  teamId: string,
  broadcast: WireBroadcast,
  contactIdOrEmail: string,
): Promise<BroadcastPreview> {
  if (!broadcast.segment_id)
    throw new TidingsError("validation_error", "The broadcast has no segment yet, so it has no contact to preview for.");
  const contact = await getContact(database, teamId, contactIdOrEmail);
  if (!contact) throw new TidingsError("not_found", "Contact not found");
  const [member, fallbacks] = await Promise.all([
    sql`SELECT 1 FROM contact_segments WHERE contact_id = ${contact.id} AND segment_id = ${broadcast.segment_id}`.execute(database.db),
    sql<{ key: string; fallback_value: string | number | null }>`
      SELECT key, fallback_value FROM contact_properties WHERE team_id = ${teamId}`.execute(database.db),
  ]);
  if (member.rows.length === 0) throw new TidingsError("validation_error", "`contact` is not a contact of the broadcast's segment.");
  const parts = personalizeBroadcast({
    subject: broadcast.subject ?? "",
    html: broadcast.html,
    text: broadcast.text,
    contact: {
      email: contact.email,
      firstName: contact.first_name,
      lastName: contact.last_name,
      properties: Object.fromEntries(Object.entries(contact.properties).map(([key, p]) => [key, p.value])),
    },
    propertyFallbacks: Object.fromEntries(fallbacks.rows.map((r) => [r.key, r.fallback_value])),
    unsubscribeUrl: previewUnsubscribeUrl,
  });
  return {
    object: "broadcast_preview",
    broadcast_id: broadcast.id,
    contact_id: contact.id,
    to: contact.email,
    from: broadcast.from,
    ...parts,
  };
}
