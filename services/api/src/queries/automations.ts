import { sql } from "kysely";
import { triggerEventName, type AutomationConnection, type AutomationStatus, type AutomationStep } from "@tidings/domain";
import type { Database } from "@tidings/postgres";
import { listPage, type ListPage, type PageRequest } from "../pagination.js";
import { wireTimestamp } from "../wireTimestamp.js";
import { readModels } from "@tidings/projections";

interface AutomationFields {
  id: string;
  name: string;
  status: AutomationStatus;
  created_at: string;
  updated_at: string | null;
}

export interface AutomationListItem extends AutomationFields {
  /** A Tidings extension (docs/wire-compatibility.md §6.14): the custom event that starts a run, from the trigger step. */
  trigger_event: string | null;
}

/** The Automation object of docs/wire-compatibility.md §6.14. */
export interface WireAutomation extends AutomationFields {
  object: "automation";
  steps: AutomationStep[];
  connections: AutomationConnection[];
}

const listColumns = [
  "a.id",
  "a.name",
  "a.status",
  wireTimestamp("a.created_at").as("created_at"),
  wireTimestamp("a.updated_at").as("updated_at"),
] as const;
const teamAutomations = (database: Database, teamId: string) =>
  readModels(database).selectFrom("automations as a").where("a.team_id", "=", teamId);

export function listAutomations(
  database: Database,
  teamId: string,
  page: PageRequest & { status?: AutomationStatus | undefined },
): Promise<ListPage<AutomationListItem>> {
  let base = teamAutomations(database, teamId).select([...listColumns, "a.steps"]);
  if (page.status) base = base.where("a.status", "=", page.status);
  return listPage(base, page, {
    orderBy: ["a.created_at", "a.id"],
    toItem: ({ steps, ...row }) => ({ ...row, trigger_event: triggerEventName({ steps, connections: [] }) ?? null }),
  });
}

export async function getAutomation(database: Database, teamId: string, id: string): Promise<WireAutomation | undefined> {
  const row = await teamAutomations(database, teamId)
    .where(sql`a.id::text`, "=", id)
    .select([...listColumns, "a.steps", "a.connections"])
    .executeTakeFirst();
  return row ? { object: "automation", ...row } : undefined;
}
