import type { MergeRule, Row, TableDefinition } from "./projection.js";

/**
 * Folds `next` into `current` column by column, in memory, exactly as the SQL of `mergeExpression`
 * folds a write into a stored row. A column `current` lacks counts as NULL, which every rule treats as
 * "no value yet", so merging a partial write is the same as applying it after the stored row.
 */
export function mergeRows(table: TableDefinition, current: Row, next: Row): Row {
  const merged: Row = { ...current };
  for (const column in next) {
    const rule = table.columns[column]?.merge ?? "replace";
    merged[column] = mergeValues(rule, current[column], next[column]);
  }
  return merged;
}

export function mergeValues(rule: MergeRule, current: unknown, next: unknown): unknown {
  if (rule === "replace") return next;
  const noCurrent = current === undefined || current === null;
  const noNext = next === undefined || next === null;
  if (noCurrent && noNext) return rule === "add" ? 0 : null;
  if (noCurrent) return next;
  if (noNext) return current;
  switch (rule) {
    case "add":
      return typeof current === "bigint" || typeof next === "bigint"
        ? BigInt(current as bigint) + BigInt(next as bigint)
        : (current as number) + (next as number);
    case "keep":
      return current;
    case "max":
      return compare(next, current) > 0 ? next : current;
    case "min":
      return compare(next, current) < 0 ? next : current;
  }
}

function compare(a: unknown, b: unknown): number {
  const x = a instanceof Date ? a.getTime() : a;
  const y = b instanceof Date ? b.getTime() : b;
  return (x as number) < (y as number) ? -1 : (x as number) > (y as number) ? 1 : 0;
}

/**
 * The SQL that merges `incoming` (EXCLUDED in an upsert, the VALUES row in an update) into `stored`.
 * Text compared by `max`/`min` follows the column's collation in SQL but code-point order in memory:
 * keep those rules to numbers and times.
 */
export function mergeExpression(rule: MergeRule, stored: string, incoming: string): string {
  switch (rule) {
    case "replace":
      return incoming;
    case "add":
      return `COALESCE(${stored}, 0) + COALESCE(${incoming}, 0)`;
    case "keep":
      return `COALESCE(${stored}, ${incoming})`;
    case "max":
      return `GREATEST(${stored}, ${incoming})`;
    case "min":
      return `LEAST(${stored}, ${incoming})`;
  }
}
