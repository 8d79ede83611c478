import { z } from "zod";
import { sql, type RawBuilder } from "kysely";

/**
 * A timestamptz column in the wire format, `YYYY-MM-DD HH:MM:SS.ffffff+00` (docs/architecture.md §6), formatted by
 * PostgreSQL: going through a JS Date would drop the microseconds. NULL stays NULL.
 */
export function wireTimestamp(column: string): RawBuilder<string> {
  return sql<string>`to_char(${sql.ref(column)} AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS.US"+00"')`;
}

/** A wire timestamp in a response schema: documents the format, which the OpenAPI document then states. */
export const wireTimestampText = () =>
  z
    .string()
    .meta({ pattern: "^\\d{4}-\\d{2}-\\d{2} \\d{2}:\\d{2}:\\d{2}\\.\\d{6}\\+00$" })
    .describe("UTC, `YYYY-MM-DD HH:MM:SS.ffffff+00`.");
