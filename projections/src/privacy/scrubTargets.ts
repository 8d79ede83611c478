import type { Database } from "@tidings/postgres";
import { readCheckpoints } from "../engine/checkpoints.js";
import { physicalTable } from "../engine/readModelTables.js";

/** What one scrub pass writes to: each read-model table under the name this pass uses. */
export interface ScrubTarget {
  /** The live view, or a rebuild's shadow table. */
  table(logical: string): string;
  /** Whether the pass reaches any of these tables: a shadow pass only reaches the tables being rebuilt. */
  reaches(tables: readonly string[]): boolean;
  /** The live pass, which also reaches the tables that are not read models. */
  live: boolean;
}

export type Counts = Record<string, number>;

export function addCounts(into: Counts, from: Counts): Counts {
  for (const [table, rows] of Object.entries(from)) into[table] = (into[table] ?? 0) + rows;
  return into;
}

const live: ScrubTarget = { table: (logical) => logical, reaches: () => true, live: true };

/**
 * The live tables, then the shadow tables of any rebuild under way: a rebuild that read the events before
 * the keys were shredded holds the values in clear, and would bring them back when it switches in. A
 * shadow table has no secondary index until its build catches up, so its pass scans it whole.
 */
export async function scrubTargets(database: Database): Promise<ScrubTarget[]> {
  const shadows = new Map<string, string>();
  for (const checkpoint of await readCheckpoints(database.db)) {
    if (checkpoint.state !== "rebuilding") continue;
    for (const table of checkpoint.tables) shadows.set(table, physicalTable(table, checkpoint.version, true));
  }
  if (shadows.size === 0) return [live];
  const shadow: ScrubTarget = {
    table: (logical) => shadows.get(logical) ?? logical,
    reaches: (tables) => tables.some((table) => shadows.has(table)),
    live: false,
  };
  return [live, shadow];
}

/** A count of nothing yet for each of these tables, so a result names every table a pass looked at. */
export const noRows = (target: ScrubTarget, tables: readonly string[]): Counts =>
  Object.fromEntries(tables.map((table) => [target.table(table), 0]));
