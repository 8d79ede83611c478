import { sql } from "kysely";
import type { Database } from "@tidings/postgres";
import { listPage, type ListPage, type PageRequest } from "../pagination.js";
import { wireTimestamp } from "../wireTimestamp.js";
import { readModels } from "@tidings/projections";

export interface SegmentItem {
  id: string;
  name: string;
  created_at: string;
}

const columns = ["g.id", "g.name", wireTimestamp("g.created_at").as("created_at")] as const;
const teamSegments = (database: Database, teamId: string) =>
  readModels(database).selectFrom("segments as g").where("g.team_id", "=", teamId);

/** Segments are an older list endpoint: every segment when `limit` is omitted (docs/wire-compatibility.md §2.1). */
export function listSegments(database: Database, teamId: string, page: PageRequest): Promise<ListPage<SegmentItem>> {
  return listPage(teamSegments(database, teamId).select([...columns]), page, {
    whenLimitOmitted: "all",
    orderBy: ["g.created_at", "g.id"],
  });
}

export async function getSegment(database: Database, teamId: string, id: string): Promise<SegmentItem | undefined> {
  return await teamSegments(database, teamId)
    .select([...columns])
    .where(sql`g.id::text`, "=", id)
    .executeTakeFirst();
}

/** The live segments a contact is in; memberships of a deleted segment are joined away. */
export function listContactSegments(
  database: Database,
  teamId: string,
  contactId: string,
  page: PageRequest,
): Promise<ListPage<SegmentItem>> {
  const base = teamSegments(database, teamId)
    .innerJoin("contact_segments as m", "m.segment_id", "g.id")
    .where("m.contact_id", "=", contactId)
    .select([...columns]);
  return listPage(base, page, { orderBy: ["g.created_at", "g.id"] });
}
