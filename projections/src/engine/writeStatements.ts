import { quoteIdent } from "@tidings/postgres";
import type { PendingRow, TableWrites } from "./batchWrites.js";
import { mergeExpression } from "./mergeRules.js";
import type { Row, TableDefinition } from "./projection.js";
import { tallyStatements } from "./tallyStatements.js";
import { chunks, type Statement } from "./valueLists.js";

export type { Statement } from "./valueLists.js";

/**
 * The statements that apply one table's folded writes, `physical` naming the table behind each logical
 * one: one DELETE, then UPDATEs, then multi-row upserts, one per set of columns written (a multi-row
 * statement needs one column list); or, for an entry of tallies, their statements.
 */
export function writeStatements(writes: TableWrites, physical: (table: string) => string): Statement[] {
  if (writes.tallies.length > 0) return tallyStatements(writes, physical);
  const { definition, rows } = writes;
  const table = quoteIdent(physical(writes.table));
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
