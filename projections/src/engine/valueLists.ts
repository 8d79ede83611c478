import type { Row, TableDefinition } from "./projection.js";

export interface Statement {
  text: string;
  params: unknown[];
}

/** Far below PostgreSQL's 65,535 bind parameters, and large enough that a batch is a few statements. */
const MAX_PARAMS = 30_000;

/** `($1::type, …), (…)` lists of at most MAX_PARAMS parameters, with their values. */
export function chunks(rows: Row[], columns: string[], definition: TableDefinition): { values: string; params: unknown[] }[] {
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
