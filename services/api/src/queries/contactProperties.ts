import { sql } from "kysely";
import type { ContactPropertyType, ContactPropertyValue } from "@tidings/domain";
import type { Database } from "@tidings/postgres";
import { listPage, type ListPage, type PageRequest } from "../pagination.js";
import { wireTimestamp } from "../wireTimestamp.js";
import { readModels } from "@tidings/projections";

export interface ContactPropertyItem {
  id: string;
  key: string;
  type: ContactPropertyType;
  fallback_value: ContactPropertyValue | null;
  created_at: string;
}

const columns = ["p.id", "p.key", "p.type", "p.fallback_value", wireTimestamp("p.created_at").as("created_at")] as const;
const teamProperties = (database: Database, teamId: string) =>
  readModels(database)
    .selectFrom("contact_properties as p")
    .where("p.team_id", "=", teamId)
    .select([...columns]);

/** Newest first; a newer list endpoint, so it pages by 20 when `limit` is omitted (docs/wire-compatibility.md §2.1). */
export function listContactProperties(database: Database, teamId: string, page: PageRequest): Promise<ListPage<ContactPropertyItem>> {
  return listPage(teamProperties(database, teamId), page, { orderBy: ["p.created_at", "p.id"] });
}

export async function getContactProperty(
  database: Database,
  teamId: string,
  id: string,
): Promise<(ContactPropertyItem & { object: "contact_property" }) | undefined> {
  const row = await teamProperties(database, teamId)
    .where(sql`p.id::text`, "=", id)
    .executeTakeFirst();
  return row && { object: "contact_property", ...row };
}
