import { sql } from "kysely";
import type { RunStatus, RunStepStatus } from "@tidings/domain";
import type { Database } from "@tidings/postgres";
import { listPage, type ListPage, type PageRequest } from "../pagination.js";
import { wireTimestamp } from "../wireTimestamp.js";
import { readModels } from "@tidings/projections";

export interface RunListItem {
  id: string;
  status: RunStatus;
  started_at: string | null;
  completed_at: string | null;
  created_at: string;
}

export interface WireRunStep {
  key: string;
  type: string;
  status: RunStepStatus;
  output: Record<string, unknown> | null;
  error: string | null;
  started_at: string | null;
  completed_at: string | null;
  created_at: string;
}

/** The AutomationRun object of docs/wire-compatibility.md §6.14: its steps in the order of the graph. */
export interface WireRun extends RunListItem {
  object: "automation_run";
  steps: WireRunStep[];
}

const columns = [
  "r.id",
  "r.status",
  wireTimestamp("r.started_at").as("started_at"),
  wireTimestamp("r.completed_at").as("completed_at"),
  wireTimestamp("r.created_at").as("created_at"),
] as const;
const automationRuns = (database: Database, teamId: string, automationId: string) =>
  readModels(database)
    .selectFrom("automation_runs as r")
    .where("r.team_id", "=", teamId)
    .where(sql`r.automation_id::text`, "=", automationId)
    .select([...columns]);

/** `status` is a comma-separated list of run statuses (the SDK sends it so). */
export function listRuns(
  database: Database,
  teamId: string,
  automationId: string,
  page: PageRequest & { statuses?: RunStatus[] | undefined },
): Promise<ListPage<RunListItem>> {
  let base = automationRuns(database, teamId, automationId);
  if (page.statuses?.length) base = base.where("r.status", "in", page.statuses);
  return listPage(base, page, { orderBy: ["r.created_at", "r.id"] });
}

export async function getRun(database: Database, teamId: string, automationId: string, runId: string): Promise<WireRun | undefined> {
  const run = await automationRuns(database, teamId, automationId)
    .where(sql`r.id::text`, "=", runId)
    .executeTakeFirst();
  if (!run) return undefined;
  const steps = await readModels(database)
    .selectFrom("automation_run_steps as s")
    .where(sql`s.run_id::text`, "=", runId)
    .select([
      "s.key",
      "s.type",
      "s.status",
      "s.output",
      "s.error",
      wireTimestamp("s.started_at").as("started_at"),
      wireTimestamp("s.completed_at").as("completed_at"),
      wireTimestamp("s.created_at").as("created_at"),
    ])
    .orderBy("s.position")
    .execute();
  return { object: "automation_run", ...run, steps };
}
