import { sql, type RawBuilder } from "kysely";
import { likeLiteral } from "@tidings/postgres";
import type { AllFilter } from "../port.js";

/** The SQL condition for an `$all` filter; TRUE without one. */
export function allFilterCondition(filter: AllFilter | undefined): RawBuilder<unknown> {
  if (!filter) return sql`TRUE`;
  if ("eventTypePrefix" in filter) {
    const patterns = filter.eventTypePrefix.map((prefix) => likeLiteral(prefix) + "%");
    return sql`e.type LIKE ANY (${patterns}::text[])`;
  }
  // A category is the part of the stream id before the first dash, the whole id when there is none.
  return sql`split_part(e.stream_id, '-', 1) = ANY (${filter.streamCategory}::text[])`;
}
