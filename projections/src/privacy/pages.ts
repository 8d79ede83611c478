import { sql } from "kysely";

/** Rows one statement reads or writes: a pass over millions of rows goes in statements this size. */
export const PAGE_ROWS = 1_000;

/** A place in a team's rows in the order of `newestFirstPerTeam`; the time as text keeps its microseconds. */
export interface TeamCursor {
  id: string;
  created_at: string;
}

// Page queries select `id::text` and `created_at::text` under the columns' own names, and ORDER BY takes an
// output name first: the order and the keyset name the table's columns through its alias, or the scan would
// sort text instead of walking the index.
const column = (alias: string, name: string) => sql.ref(`${alias}.${name}`);

/** The rows of `alias` after `cursor` in `newestFirstPerTeam` order, a page of them: a scan of one team's rows. */
export const newestFirstAfter = (alias: string, cursor: TeamCursor | undefined) => ({
  after: cursor
    ? sql`AND (${column(alias, "created_at")}, ${column(alias, "id")}) < (${cursor.created_at}::timestamptz, ${cursor.id}::uuid)`
    : sql``,
  page: sql`ORDER BY ${column(alias, "created_at")} DESC, ${column(alias, "id")} DESC LIMIT ${PAGE_ROWS}`,
});

/** The rows of `alias` after `cursor` in primary-key order, a page of them: a scan of a whole table (retention spans every team). */
export const byIdAfter = (alias: string, cursor: { id: string } | undefined) => ({
  after: cursor ? sql`AND ${column(alias, "id")} > ${cursor.id}::uuid` : sql``,
  page: sql`ORDER BY ${column(alias, "id")} LIMIT ${PAGE_ROWS}`,
});

/** Reads pages until a short one, each after the last row of the one before, and hands each to `handle`. */
export async function eachPage<Row>(
  read: (after: Row | undefined) => Promise<Row[]>,
  handle: (rows: Row[]) => Promise<void>,
): Promise<void> {
  let after: Row | undefined;
  for (;;) {
    const rows = await read(after);
    if (rows.length > 0) await handle(rows);
    if (rows.length < PAGE_ROWS) return;
    after = rows[rows.length - 1];
  }
}
