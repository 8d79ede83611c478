import { createHash } from "node:crypto";
import { sql } from "kysely";
import { quoteIdent, type Database } from "@tidings/postgres";
import type { Projection } from "./projection.js";

export interface ReadModelChecksum {
  /** md5 over the per-table checksums, in table order. */
  checksum: string;
  /** Logical table → md5 over the md5 of each row's text, rows ordered by primary key. */
  tables: Record<string, string>;
}

/**
 * A fingerprint of what readers see (the views), to compare a live projection with a rebuilt one.
 * Hashing each row first keeps the aggregated string at 32 bytes a row, whatever the rows hold.
 */
export async function readModelChecksum(database: Database, projection: Projection): Promise<ReadModelChecksum> {
  const tables: Record<string, string> = {};
  for (const [table, definition] of Object.entries(projection.tables)) {
    const order = definition.primaryKey.map((c) => `t.${quoteIdent(c)}`).join(", ");
    const { rows } = await sql<{ md5: string }>`
      SELECT md5(coalesce(string_agg(md5(t::text), '' ORDER BY ${sql.raw(order)}), '')) AS md5
        FROM ${sql.raw(quoteIdent(table))} t`.execute(database.db);
    tables[table] = rows[0]!.md5;
  }
  return { checksum: createHash("md5").update(Object.values(tables).join("")).digest("hex"), tables };
}
