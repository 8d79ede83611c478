import { quoteIdent } from "@tidings/postgres";
import type { TableWrites } from "./batchWrites.js";
import { mergeExpression } from "./mergeRules.js";
import type { PendingTally } from "./pendingTallies.js";
import type { ColumnDefinition, MergeRule, TableDefinition } from "./projection.js";
import { chunks, type Statement } from "./valueLists.js";

/** How a merge rule sums the tallies of one target row within a statement (an upsert may touch a row once). */
const aggregates: Partial<Record<MergeRule, string>> = { add: "SUM", max: "MAX", min: "MIN" };

/**
 * The statements that apply a table's tallies (BatchContext.tally): per group of tallies of one shape,
 * the rows read are joined in SQL (or, counted once, claimed by an UPDATE of their `once` column that
 * returns only the rows it changed), summed per target key, and upserted with the columns' merge rules.
 */
export function tallyStatements(writes: TableWrites, physical: (table: string) => string): Statement[] {
  const groups = new Map<string, PendingTally[]>();
  for (const tally of writes.tallies) {
    const { through, row } = tally;
    const shape = JSON.stringify([through.table, Object.keys(through.key), through.columns, through.once?.column, Object.keys(row).sort()]);
    const group = groups.get(shape);
    if (group) group.push(tally);
    else groups.set(shape, [tally]);
  }
  return [...groups.values()].flatMap((group) => groupStatements(writes, group, physical));
}

function groupStatements(writes: TableWrites, group: PendingTally[], physical: (table: string) => string): Statement[] {
  const { through, source } = group[0]!;
  const { definition } = writes;
  const q = quoteIdent;
  const sourceKey = Object.keys(through.key);
  const own = Object.keys(group[0]!.row).sort();
  // The VALUES list names its columns k0…, c0… (and once): a key column read may share its name with a column written.
  const values: Record<string, ColumnDefinition> = {};
  sourceKey.forEach((c, i) => (values[`k${i}`] = source.columns[c]!));
  own.forEach((c, i) => (values[`c${i}`] = definition.columns[c]!));
  if (through.once) values.once = source.columns[through.once.column]!;
  const names = Object.keys(values);
  const rows = group.map(({ through: t, row }) => {
    const cells: Record<string, unknown> = {};
    sourceKey.forEach((c, i) => (cells[`k${i}`] = t.key[c]));
    own.forEach((c, i) => (cells[`c${i}`] = row[c]));
    if (t.once) cells.once = t.once.value;
    return cells;
  });

  const match = sourceKey.map((c, i) => `s.${q(c)} = v.${q(`k${i}`)}`).join(" AND ");
  const picked = [
    ...Object.entries(through.columns).map(([target, read]) => `s.${q(read)} AS ${q(target)}`),
    ...own.map((c, i) => `v.${q(`c${i}`)} AS ${q(c)}`),
  ].join(", ");
  const sourceTable = q(physical(through.table));
  const matched = through.once
    ? `UPDATE ${sourceTable} AS s SET ${q(through.once.column)} = v."once" FROM v ` +
      `WHERE ${match} AND s.${q(through.once.column)} IS NULL RETURNING ${picked}`
    : `SELECT ${picked} FROM v JOIN ${sourceTable} AS s ON ${match}`;

  const key = definition.primaryKey;
  const counted = own.filter((c) => !key.includes(c));
  const summed = counted.map((c) => {
    const column = definition.columns[c]!;
    return `${aggregates[column.merge!]!}(m.${q(c)})::${column.type} AS ${q(c)}`;
  });
  // A row a tally makes starts every counter it does not name at 0, so counters need not be nullable.
  const zeroed = Object.entries(definition.columns)
    .filter(([c, column]) => column.merge === "add" && !key.includes(c) && !counted.includes(c))
    .map(([c, column]) => [c, `0::${column.type} AS ${q(c)}`] as const);
  const set = counted.map((c) => `${q(c)} = ${mergeExpression(definition.columns[c]!.merge!, `t.${q(c)}`, `EXCLUDED.${q(c)}`)}`);
  const onConflict = `ON CONFLICT (${key.map(q).join(", ")}) ${set.length > 0 ? `DO UPDATE SET ${set.join(", ")}` : "DO NOTHING"}`;
  const valuesDefinition: TableDefinition = { columns: values, primaryKey: [] };
  return chunks(rows, names, valuesDefinition).map(({ values: list, params }) => ({
    text:
      `WITH v(${names.map(q).join(", ")}) AS (VALUES ${list}), m AS (${matched}) ` +
      `INSERT INTO ${q(physical(writes.table))} AS t (${[...key, ...counted, ...zeroed.map(([c]) => c)].map(q).join(", ")}) ` +
      `SELECT ${[...key.map((c) => `m.${q(c)}`), ...summed, ...zeroed.map(([, zero]) => zero)].join(", ")} FROM m GROUP BY ${key.map((c) => `m.${q(c)}`).join(", ")} ${onConflict}`,
    params,
  }));
}
