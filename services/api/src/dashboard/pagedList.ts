import { withQuery } from "./apiCalls.js";
import type { SignedIn } from "./dashboard.js";
import type { Html, HtmlValue } from "./html.js";
import { pagedTable } from "./lists.js";
import { listPageSize, type Cursor, type CursorNames } from "./pagination.js";

export interface PagedList<Item> {
  /** The API's list, and its filters besides the cursors. */
  api: { path: string; query?: Record<string, string | undefined> };
  /** The page's address and what its pager keeps (`pager`). */
  page: { path: string; keep?: Record<string, string | undefined>; cursorNames?: CursorNames };
  /** Names the list in its error ("The segments"). */
  what: string;
  empty: HtmlValue;
  caption: string;
  columns: readonly string[];
  row: (item: Item) => readonly HtmlValue[];
}

/** Asks the API for one page of a list and shows it (`pagedTable`): its table and pager, or in words that it is empty or failed. */
export async function pagedList<Item extends { id: string }>(who: SignedIn, cursor: Cursor, list: PagedList<Item>): Promise<Html> {
  const answer = await who.api.get<{ has_more: boolean; data: Item[] }>(
    withQuery(list.api.path, { ...list.api.query, limit: listPageSize, after: cursor.after, before: cursor.before }),
  );
  const { what, empty, caption, columns, row } = list;
  return pagedTable(answer, { what, empty, caption, columns, row, cursor, ...list.page });
}
