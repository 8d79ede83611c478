import { sql } from "kysely";
import type { EventSchema } from "@tidings/domain";
import type { Database } from "@tidings/postgres";
import { listPage, type ListPage, type PageRequest } from "../pagination.js";
import { wireTimestamp } from "../wireTimestamp.js";
import { readModels } from "@tidings/projections";

/** The Event object (docs/wire-compatibility.md §6.15). */
export interface WireEventDefinition {
  object: "event";
  id: string;
  name: string;
  schema: EventSchema;
  created_at: string;
  updated_at: string | null;
}

const columns = [
  sql<"event">`'event'`.as("object"),
  "e.id",
  "e.name",
  "e.schema",
  wireTimestamp("e.created_at").as("created_at"),
  wireTimestamp("e.updated_at").as("updated_at"),
] as const;
const teamEvents = (database: Database, teamId: string) =>
  readModels(database)
    .selectFrom("event_definitions as e")
    .where("e.team_id", "=", teamId)
    .select([...columns]);

/** Newest first, 20 a page unless `limit` says otherwise. */
export function listEventDefinitions(database: Database, teamId: string, page: PageRequest): Promise<ListPage<WireEventDefinition>> {
  return listPage(teamEvents(database, teamId), page, { orderBy: ["e.created_at", "e.id"] });
}

/** By id or by name; an id wins over a name that happens to look like one. */
export function getEventDefinition(database: Database, teamId: string, idOrName: string): Promise<WireEventDefinition | undefined> {
  return teamEvents(database, teamId)
    .where((eb) => eb.or([eb(sql`e.id::text`, "=", idOrName), eb("e.name", "=", idOrName)]))
    .orderBy(sql`e.id::text = ${idOrName}`, "desc")
    .executeTakeFirst();
}
