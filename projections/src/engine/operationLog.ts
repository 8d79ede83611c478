import { sql } from "kysely";
import type { Database } from "@tidings/postgres";
import { formatPosition, type Position } from "@tidings/eventstore";

/** What an operator ran on a projection, kept in `projection_operations` for `tidings projections status`. */
export type OperationKind = "rebuild" | "verify";

export interface ProjectionOperation {
  name: string;
  kind: OperationKind;
  /** `differs`: a verify found rows where the live tables and a replay disagree. */
  outcome: "ok" | "differs" | "failed";
  startedAt: Date;
  finishedAt: Date;
  events: number;
  seconds: number;
  /** The position the rebuild switched at, or the verify compared at. */
  position: string | undefined;
  differences: number;
  /** The error of a failed one; the first differing rows of a verify. */
  detail: Record<string, unknown>;
}

export interface OperationRecord {
  name: string;
  kind: OperationKind;
  outcome: ProjectionOperation["outcome"];
  startedAt: Date;
  events: number;
  position?: Position;
  differences?: number;
  detail?: Record<string, unknown>;
}

export async function recordOperation(database: Database, record: OperationRecord): Promise<void> {
  const seconds = (Date.now() - record.startedAt.getTime()) / 1000;
  await sql`
    INSERT INTO projection_operations (name, kind, outcome, started_at, events, seconds, position, differences, detail)
    VALUES (${record.name}, ${record.kind}, ${record.outcome}, ${record.startedAt.toISOString()}, ${record.events}, ${seconds},
            ${record.position ? formatPosition(record.position) : null}, ${record.differences ?? 0},
            ${JSON.stringify(record.detail ?? {})}::jsonb)`.execute(database.db);
}

/**
 * Records an operation that threw, then lets the error go on: a failure to record it must not hide the
 * failure itself.
 */
export async function recordFailure(
  database: Database,
  operation: Pick<OperationRecord, "name" | "kind" | "startedAt" | "events">,
  error: unknown,
): Promise<never> {
  const message = error instanceof Error ? error.message : String(error);
  await recordOperation(database, { ...operation, outcome: "failed", detail: { error: message } }).catch(() => {});
  throw error;
}

interface OperationRow {
  name: string;
  kind: OperationKind;
  outcome: ProjectionOperation["outcome"];
  started_at: Date | string;
  finished_at: Date | string;
  events: string | number;
  seconds: number;
  position: string | null;
  differences: number;
  detail: Record<string, unknown> | string;
}

/** The latest rebuild and the latest verify of each projection named. */
export async function lastOperations(database: Database, names: string[]): Promise<ProjectionOperation[]> {
  if (names.length === 0) return [];
  const { rows } = await sql<OperationRow>`
    SELECT DISTINCT ON (name, kind) name, kind, outcome, started_at, finished_at, events::text AS events, seconds, position,
           differences, detail
      FROM projection_operations WHERE name IN (${sql.join(names)})
     ORDER BY name, kind, finished_at DESC, id DESC`.execute(database.db);
  return rows.map((r) => ({
    name: r.name,
    kind: r.kind,
    outcome: r.outcome,
    startedAt: new Date(r.started_at),
    finishedAt: new Date(r.finished_at),
    events: Number(r.events),
    seconds: Number(r.seconds),
    position: r.position ?? undefined,
    differences: Number(r.differences),
    detail: typeof r.detail === "string" ? (JSON.parse(r.detail) as Record<string, unknown>) : r.detail,
  }));
}
