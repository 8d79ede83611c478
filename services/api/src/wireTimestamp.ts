import { sql, type RawBuilder } from "kysely";

/**
 * A timestamptz column in the wire format, `YYYY-MM-DD HH:MM:SS.ffffff+00` (DESIGN §6), formatted by
 * PostgreSQL: going through a JS Date would drop the microseconds. NULL stays NULL.
 */
export function wireTimestamp(column: string): RawBuilder<string> {
  return sql<string>`to_char(${sql.ref(column)} AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS.US"+00"')`;
}
