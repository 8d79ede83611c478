import { sql, type Kysely } from "kysely";
import { quoteIdent } from "@tidings/postgres";
import type { Projection } from "./projection.js";

/** One row where the live tables and a replay disagree: missing on one side, or with other values. */
export interface RowDifference {
  /** The logical table, as readers name it. */
  table: string;
  /** The row's primary key. */
  key: Record<string, unknown>;
  /** Column → its value in the live table and in the replay; a row missing on one side is `null` there. */
  columns: Record<string, { live: unknown; replay: unknown }>;
  live: Record<string, unknown> | null;
  replay: Record<string, unknown> | null;
}

export interface TableComparison {
  differences: number;
  /** The first `limit` of them, by primary key. */
  rows: RowDifference[];
}

/**
 * Compares each live table with its replay row by row, joined on the primary key. Values are compared as
 * jsonb, so a timestamp or a number equal in value is equal whatever its text.
 */
export async function compareTables(
  db: Kysely<unknown>,
  projection: Projection,
  live: Map<string, string>,
  replay: Map<string, string>,
  limit: number,
): Promise<Map<string, TableComparison>> {
  const out = new Map<string, TableComparison>();
  for (const [table, definition] of Object.entries(projection.tables)) {
    const join = definition.primaryKey.map((c) => `l.${quoteIdent(c)} = r.${quoteIdent(c)}`).join(" AND ");
    const order = definition.primaryKey.map((c) => `coalesce(l.${quoteIdent(c)}, r.${quoteIdent(c)})`).join(", ");
    const joined = `${quoteIdent(live.get(table)!)} l FULL OUTER JOIN ${quoteIdent(replay.get(table)!)} r ON ${join}`;
    const from = sql.raw(`${joined} WHERE to_jsonb(l) IS DISTINCT FROM to_jsonb(r)`);
    const counted = await sql<{ n: string }>`SELECT count(*)::text AS n FROM ${from}`.execute(db);
    const differences = Number(counted.rows[0]!.n);
    if (differences === 0) {
      out.set(table, { differences, rows: [] });
      continue;
    }
    const { rows } = await sql<{ live: Record<string, unknown> | string | null; replay: Record<string, unknown> | string | null }>`
      SELECT CASE WHEN l IS NULL THEN NULL ELSE to_jsonb(l) END AS live, CASE WHEN r IS NULL THEN NULL ELSE to_jsonb(r) END AS replay
        FROM ${from} ORDER BY ${sql.raw(order)} LIMIT ${limit}`.execute(db);
    out.set(table, {
      differences,
      rows: rows.map((row) => difference(table, definition.primaryKey, json(row.live), json(row.replay))),
    });
  }
  return out;
}

const json = (value: Record<string, unknown> | string | null) =>
  typeof value === "string" ? (JSON.parse(value) as Record<string, unknown>) : value;

function difference(
  table: string,
  primaryKey: string[],
  live: Record<string, unknown> | null,
  replay: Record<string, unknown> | null,
): RowDifference {
  const either = (live ?? replay)!;
  const columns: RowDifference["columns"] = {};
  for (const column of new Set([...Object.keys(live ?? {}), ...Object.keys(replay ?? {})])) {
    const a = live ? (live[column] ?? null) : null;
    const b = replay ? (replay[column] ?? null) : null;
    if (JSON.stringify(a) !== JSON.stringify(b)) columns[column] = { live: a, replay: b };
  }
  return { table, key: Object.fromEntries(primaryKey.map((c) => [c, either[c]])), columns, live, replay };
}
