import { z } from "zod";
import { sql, type SelectQueryBuilder } from "kysely";
import { TidingsError } from "@tidings/core";

/** The list envelope of every list endpoint (docs/wire-compatibility.md §2.1). */
export interface ListPage<Item> {
  object: "list";
  has_more: boolean;
  data: Item[];
}

export const maxPageSize = 100;
/** docs/wire-compatibility.md §2.1: the documented default when `limit` is omitted. */
export const defaultPageSize = 20;

const limitMessage = `\`limit\` must be an integer between 1 and ${maxPageSize}.`;

/** `limit`, `after`, `before`; spread into a query schema through `listQuerySchema`. */
export const paginationShape = {
  limit: z.coerce
    .number({ error: limitMessage })
    .int({ error: limitMessage })
    .min(1, { error: limitMessage })
    .max(maxPageSize, { error: limitMessage })
    .optional()
    .describe(`Number of items to return, 1 to ${maxPageSize}.`),
  after: z.guid().optional().describe("Return the items that follow the item with this id; that item is excluded."),
  before: z.guid().optional().describe("Return the items that precede the item with this id; that item is excluded."),
};

/**
 * The query schema of a list endpoint: pagination plus the endpoint's own filters (e.g. `status`).
 * `after` and `before` together are refused (docs/wire-compatibility.md §10.1).
 */
export function listQuerySchema<Filters extends z.ZodRawShape = Record<never, never>>(filters?: Filters) {
  return z
    .object({ ...paginationShape, ...(filters ?? ({} as Filters)) })
    .refine((query: { after?: unknown; before?: unknown }) => query.after === undefined || query.before === undefined, {
      message: "`after` and `before` cannot be used together.",
    });
}

export interface PageRequest {
  limit?: number | undefined;
  after?: string | undefined;
  before?: string | undefined;
}

export interface PageOptions<Row, Item> {
  /**
   * Page size when `limit` is omitted. `"all"` is for the older endpoints that return every item when no
   * `limit` is given (docs/wire-compatibility.md §2.1: domains, api-keys, broadcasts, segments, contacts, receiving).
   */
  whenLimitOmitted?: number | "all";
  /**
   * Columns the list is ordered by, newest first, all descending. The last must be unique: it is the
   * item id that `after` and `before` name.
   */
  orderBy?: readonly string[];
  toItem?: (row: Row) => Item;
}

/**
 * Runs one page of a list. `base` selects the rows visible to the caller (team filter and endpoint
 * filters applied) and is neither ordered nor limited. Keyset pagination: the cursor item's sort key is
 * looked up inside the same statement, so timestamps keep their microseconds and rows inserted while a
 * client pages (always newer, so always ahead of the first page) never shift or repeat later pages.
 *
 * `has_more` says whether more items lie further in the direction of travel: older ones after an
 * `after` page or a first page, newer ones before a `before` page. Items are always newest first.
 */
export async function listPage<DB, Table extends keyof DB, Row, Item = Row>(
  base: SelectQueryBuilder<DB, Table, Row>,
  page: PageRequest,
  options: PageOptions<Row, Item> = {},
): Promise<ListPage<NoInfer<Item>>> {
  const keys = options.orderBy ?? ["created_at", "id"];
  const idColumn = keys[keys.length - 1]!;
  const omitted = options.whenLimitOmitted ?? defaultPageSize;
  const limit = page.limit ?? (omitted === "all" ? undefined : omitted);
  const backwards = page.before !== undefined;
  const cursor = page.before ?? page.after;

  const isCursor = (id: string) => sql<boolean>`${sql.ref(idColumn)} = ${id}`;
  let query = base;
  if (cursor !== undefined) {
    const anchor = base
      .clearSelect()
      .select(keys.map((key, i) => sql.ref(key).as(`key${i}`)))
      .where(isCursor(cursor));
    const tuple = sql.join(keys.map((key) => sql.ref(key)));
    query = query.where(sql<boolean>`(${tuple}) ${sql.raw(backwards ? ">" : "<")} (${anchor})`);
  }
  for (const key of keys) query = query.orderBy(sql.ref(key), backwards ? "asc" : "desc");
  if (limit !== undefined) query = query.limit(limit + 1);

  const rows = await query.execute();
  if (rows.length === 0 && cursor !== undefined) {
    const found = await base.clearSelect().select(sql.lit(1).as("found")).where(isCursor(cursor)).executeTakeFirst();
    if (!found) throw new TidingsError("validation_error", `\`${backwards ? "before" : "after"}\` does not name an item of this list.`);
  }
  const hasMore = limit !== undefined && rows.length > limit;
  const pageRows = hasMore ? rows.slice(0, limit) : rows;
  if (backwards) pageRows.reverse();
  const toItem = options.toItem ?? ((row: Row) => row as unknown as Item);
  return { object: "list", has_more: hasMore, data: pageRows.map(toItem) };
}

/** The response schema of a list endpoint, for its route's `response` and the OpenAPI document. */
export function listSchema<Item extends z.ZodType>(item: Item) {
  return z.object({ object: z.literal("list"), has_more: z.boolean(), data: z.array(item) });
}
