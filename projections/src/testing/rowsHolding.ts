import { sql } from "kysely";
import type { Database } from "@tidings/postgres";

export interface RowHolding {
  table: string;
  value: string;
  row: string;
}

/**
 * Every row of every table in the database (the event store's and the key table's included), as
 * `row_to_json` text, that holds one of `values` in any case; rows `skip` returns true for are left out.
 */
export async function rowsHolding(
  database: Database,
  values: string[],
  skip: (row: string) => boolean = () => false,
): Promise<RowHolding[]> {
  const { rows: tables } = await sql<{ name: string }>`
    SELECT format('%I.%I', schemaname, tablename) AS name FROM pg_tables
     WHERE schemaname NOT IN ('pg_catalog', 'information_schema') ORDER BY 1`.execute(database.db);
  const found: RowHolding[] = [];
  const lower = values.map((value) => value.toLowerCase());
  for (const { name } of tables) {
    const { rows } = await sql<{ row: string }>`SELECT row_to_json(t)::text AS row FROM ${sql.raw(name)} AS t`.execute(database.db);
    for (const { row } of rows) {
      const text = row.toLowerCase();
      const value = lower.find((v) => text.includes(v));
      if (value !== undefined && !skip(row)) found.push({ table: name, value, row });
    }
  }
  return found;
}
