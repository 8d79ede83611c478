import { sql } from "kysely";
import { normalContactEmail, type ContactPropertyValue } from "@tidings/domain";
import { likeLiteral, type Database } from "@tidings/postgres";
import { listPage, type ListPage, type PageRequest } from "../pagination.js";
import { wireTimestamp } from "../wireTimestamp.js";
import { contactSearchText, readModels } from "@tidings/projections";

/** The `Contact` list item of docs/wire-compatibility.md §6.8. */
export interface ContactItem {
  id: string;
  email: string;
  first_name: string | null;
  last_name: string | null;
  created_at: string;
  unsubscribed: boolean;
}

export type WireContactProperties = Record<string, { type: "string"; value: string } | { type: "number"; value: number }>;

export interface WireContact extends ContactItem {
  object: "contact";
  properties: WireContactProperties;
}

const columns = [
  "c.id",
  "c.email",
  "c.first_name",
  "c.last_name",
  wireTimestamp("c.created_at").as("created_at"),
  "c.unsubscribed",
] as const;
const teamContacts = (database: Database, teamId: string) =>
  readModels(database).selectFrom("contacts as c").where("c.team_id", "=", teamId);

/**
 * Contacts, newest first, optionally of one segment, and optionally those whose email or name contains
 * `search` (docs/wire-compatibility.md §6.8, a Tidings extension). An older list endpoint: every contact
 * when `limit` is omitted (§2.1).
 */
export function listContacts(
  database: Database,
  teamId: string,
  page: PageRequest & { segmentId?: string | undefined; search?: string | undefined },
): Promise<ListPage<ContactItem>> {
  let base = teamContacts(database, teamId);
  if (page.search) {
    base = base.where(sql.raw<string>(contactSearchText), "ilike", `%${likeLiteral(page.search)}%`);
  }
  if (page.segmentId !== undefined) {
    const segmentId = page.segmentId;
    base = base.where((eb) =>
      eb.exists(
        eb
          .selectFrom("contact_segments as m")
          .innerJoin("segments as g", "g.id", "m.segment_id")
          .whereRef("m.contact_id", "=", "c.id")
          .where("m.segment_id", "=", segmentId)
          .select(sql.lit(1).as("one")),
      ),
    );
  }
  return listPage(base.select([...columns]), page, { whenLimitOmitted: "all", orderBy: ["c.created_at", "c.id"] });
}

/** The SDK's `properties` shape: each value with its type, which is the value's own (string or number). */
const wireProperties = (values: Record<string, ContactPropertyValue>): WireContactProperties =>
  Object.fromEntries(
    Object.entries(values).map(([key, value]) => [key, typeof value === "number" ? { type: "number", value } : { type: "string", value }]),
  );

/** A contact by id or email (docs/wire-compatibility.md §6.8: the path is either). */
export async function getContact(database: Database, teamId: string, idOrEmail: string): Promise<WireContact | undefined> {
  const row = (await teamContacts(database, teamId)
    .select([...columns, "c.properties"])
    .where((eb) => eb.or([eb(sql`c.id::text`, "=", idOrEmail), eb("c.email", "=", normalContactEmail(idOrEmail))]))
    .executeTakeFirst()) as (ContactItem & { properties: Record<string, ContactPropertyValue> }) | undefined;
  return row && { object: "contact", ...row, properties: wireProperties(row.properties) };
}
