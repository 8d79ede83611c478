import { sql, type Kysely } from "kysely";
import { comparePositions, type AllFilter, type Position, type RecordedEvent } from "../port.js";
import { allFilterCondition } from "./allFilter.js";
import { eventColumnsButData, toRecordedEventOf, type EventRow } from "./recordedEvent.js";

export interface AllPage {
  events: RecordedEvent[];
  /**
   * Where the next page starts: the last event returned, or, when the page is not full, the end of
   * everything readable now, so a sparse filter does not rescan what it already passed.
   */
  next: Position;
  /** True when the page reached the end of what is readable now. */
  exhausted: boolean;
  /** The oldest transaction still in flight: no event of it or after it was readable. */
  horizon: bigint;
}

const LAST_SEQ = 2n ** 63n - 1n;

/**
 * Reads `$all` after a position, in (tx_id, seq) order, and only below the snapshot's xmin: every
 * transaction there has ended, so no event can later appear before the page's end. A concurrent
 * append gets a lower seq but commits late; reading past it by seq alone would skip it for good.
 * The xmin also covers the reader's own transaction when it has written, so its uncommitted events
 * are never handed out; the adapter reads through the pool, outside any caller's transaction.
 *
 * With `dataTypes`, the data of other types is neither sent nor parsed (port.ts): a sealed event is about
 * twice the bytes of the plain one (docs/privacy.md, "What sealing costs"), and a rebuild of the streams
 * read model reads no event's data at all.
 */
export async function readAllPage(
  db: Kysely<unknown>,
  after: Position,
  limit: number | undefined,
  filter?: AllFilter,
  dataTypes?: ReadonlySet<string>,
): Promise<AllPage> {
  const data = dataTypes === undefined ? sql`e.data` : sql`CASE WHEN e.type = ANY(${[...dataTypes]}::text[]) THEN e.data END AS data`;
  const { rows } = await sql<EventRow & { horizon: string }>`
    WITH horizon AS (SELECT pg_snapshot_xmin(pg_current_snapshot()) AS xmin)
    SELECT h.xmin::text AS horizon, page.*
      FROM horizon h
      LEFT JOIN LATERAL (
        SELECT ${sql.raw(eventColumnsButData)}, ${data} FROM eventstore.events e
         WHERE (e.tx_id, e.seq) > (${after.commit.toString()}::xid8, ${after.prepare.toString()}::bigint)
           AND e.tx_id < h.xmin
           AND ${allFilterCondition(filter)}
         ORDER BY e.tx_id, e.seq
         ${limit === undefined ? sql`` : sql`LIMIT ${limit}`}
      ) page ON TRUE`.execute(db);
  const horizon = BigInt(rows[0]!.horizon);
  const events = rows.filter((row) => row.seq !== null).map(toRecordedEventOf(dataTypes));
  const exhausted = limit === undefined || events.length < limit;
  const last = events.at(-1)?.position;
  const end = { commit: horizon - 1n, prepare: LAST_SEQ };
  const next = !exhausted ? last! : comparePositions(last ?? after, end) >= 0 ? (last ?? after) : end;
  return { events, next, exhausted, horizon };
}
