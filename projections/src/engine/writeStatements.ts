import { quoteIdent } from "@tidings/postgres";
import type { PendingRow, TableWrites } from "./batchWrites.js";
import { mergeExpression } from "./mergeRules.js";
import type { Row, TableDefinition } from "./projection.js";

export interface Statement {
  text: string;
  params: unknown[];
}

/** Far below PostgreSQL's 65,535 bind parameters, and large enough that a batch is a few statements. */
const MAX_PARAMS = 30_000;

/**
 * The statements that apply one table's folded writes to `physical`: one DELETE, then UPDATEs, then
 * multi-row upserts, one per set of columns written (a multi-row statement needs one column list).
 */
export function writeStatements(writes: TableWrites, physical: string): Statement[] {
  const { definition, rows } = writes;
  const table = quoteIdent(physical);
  const out: Statement[] = [];
  const deleted = rows.filter((r) => r.deleted);
  if (deleted.length > 0) out.push(...deleteStatements(table, definition, deleted));
  for (const group of groupByColumns(rows, (r) => r.update)) out.push(...updateStatements(table, definition, group));
  for (const group of groupByColumns(rows, (r) => r.upsert)) out.push(...upsertStatements(table, definition, group));
  return out;
}

function deleteStatements(table: string, definition: TableDefinition, rows: PendingRow[]): Statement[] {
  const key = definition.primaryKey;
  const match = key.map((c) => `t.${quoteIdent(c)} = v.${quoteIdent(c)}`).join(" AND ");
  return chunks(
    rows.map((r) => r.key),
    key,
    definition,
  ).map(({ values, params }) => ({
    text: `DELETE FROM ${table} AS t USING (VALUES ${values}) AS v(${key.map(quoteIdent).join(", ")}) WHERE ${match}`,
    params,
  }));
}

function updateStatements(table: string, definition: TableDefinition, group: ColumnGroup): Statement[] {
  const key = definition.primaryKey;
  const columns = [...key, ...group.columns];
  const set = group.columns
    .map(
      (c) => `${quoteIdent(c)} = ${mergeExpression(definition.columns[c]!.merge ?? "replace", `t.${quoteIdent(c)}`, `v.${quoteIdent(c)}`)}`,
    )
    .join(", ");
  const match = key.map((c) => `t.${quoteIdent(c)} = v.${quoteIdent(c)}`).join(" AND ");
  const rows = group.rows.map((r) => ({ ...r.key, ...r.update }));
  return chunks(rows, columns, definition).map(({ values, params }) => ({
    text: `UPDATE ${table} AS t SET ${set} FROM (VALUES ${values}) AS v(${columns.map(quoteIdent).join(", ")}) WHERE ${match}`,
    params,
  }));
}

function upsertStatements(table: string, definition: TableDefinition, group: ColumnGroup): Statement[] {
  const key = definition.primaryKey;
  const columns = [...key, ...group.columns.filter((c) => !key.includes(c))];
  const merged = columns
    .filter((c) => !key.includes(c))
    .map(
      (c) =>
        `${quoteIdent(c)} = ${mergeExpression(definition.columns[c]!.merge ?? "replace", `t.${quoteIdent(c)}`, `EXCLUDED.${quoteIdent(c)}`)}`,
    );
  const onConflict = `ON CONFLICT (${key.map(quoteIdent).join(", ")}) ${merged.length > 0 ? `DO UPDATE SET ${merged.join(", ")}` : "DO NOTHING"}`;
  const rows = group.rows.map((r) => r.upsert!);
  return chunks(rows, columns, definition).map(({ values, params }) => ({
    text: `INSERT INTO ${table} AS t (${columns.map(quoteIdent).join(", ")}) VALUES ${values} ${onConflict}`,
    params,
  }));
}

interface ColumnGroup {
  /** The written columns, key columns excluded, in a stable order. */
  columns: string[];
  rows: PendingRow[];
}

function groupByColumns(rows: PendingRow[], part: (row: PendingRow) => Row | undefined): ColumnGroup[] {
  const groups = new Map<string, ColumnGroup>();
  for (const row of rows) {
    const written = part(row);
    if (!written) continue;
    const columns = Object.keys(written)
      .filter((c) => !(c in row.key))
      .sort();
    const signature = columns.join(",");
    let group = groups.get(signature);
    if (!group) groups.set(signature, (group = { columns, rows: [] }));
    group.rows.push(row);
  }
  return [...groups.values()];
}

/** `($1::type, …), (…)` lists of at most MAX_PARAMS parameters, with their values. */
function chunks(rows: Row[], columns: string[], definition: TableDefinition): { values: string; params: unknown[] }[] {
  const types = columns.map((c) => definition.columns[c]!.type);
  const perChunk = Math.max(1, Math.floor(MAX_PARAMS / columns.length));
  const out: { values: string; params: unknown[] }[] = [];
  for (let start = 0; start < rows.length; start += perChunk) {
    const params: unknown[] = [];
    const tuples: string[] = [];
    for (const row of rows.slice(start, start + perChunk)) {
      const cells: string[] = [];
      for (let i = 0; i < columns.length; i++) {
        params.push(toParam(row[columns[i]!], types[i]!));
        cells.push(`$${params.length}::${types[i]}`);
      }
      tuples.push(`(${cells.join(", ")})`);
    }
    out.push({ values: tuples.join(", "), params });
  }
  return out;
}

/**
 * Values go as text or plain JSON scalars, which both drivers pass through unchanged: pg and PGlite
 * disagree on bigint and Date, and would turn a JS array meant for jsonb into a SQL array.
 */
function toParam(value: unknown, type: string): unknown {
  if (value === undefined || value === null) return null;
  if (/^jsonb?$/i.test(type)) return JSON.stringify(value, (_, v: unknown) => (typeof v === "bigint" ? v.toString() : v));
  if (value instanceof Date) return value.toISOString();
  if (typeof value === "bigint") return value.toString();
  return value;
}
