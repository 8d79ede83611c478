import { withQuery } from "./apiCalls.js";
import type { SignedIn } from "./dashboard.js";
import { html, type Html, type HtmlValue } from "./html.js";
import { dataTable, listState } from "./lists.js";
import { listPageSize, pager, type Cursor } from "./pagination.js";

export interface PagedList<Item> {
  /** The API's list, and its filters besides the cursors. */
  api: { path: string; query?: Record<string, string | undefined> };
  /** The page's address and what its pager keeps (`pager`). */
  page: { path: string; keep?: Record<string, string | undefined>; cursorNames?: { after: string; before: string } };
  /** Names the list in its error ("The segments"). */
  what: string;
  empty: HtmlValue;
  caption: string;
  columns: readonly string[];
  row: (item: Item) => readonly HtmlValue[];
}

/**
 * One page of a list the API pages with cursors, newest first: its table and pager, or in words that it is
 * empty or could not be loaded.
 */
export async function pagedList<Item extends { id: string }>(who: SignedIn, cursor: Cursor, list: PagedList<Item>): Promise<Html> {
  const answer = await who.api.get<{ has_more: boolean; data: Item[] }>(
    withQuery(list.api.path, { ...list.api.query, limit: listPageSize, after: cursor.after, before: cursor.before }),
  );
  return listState(
    answer,
    list.what,
    list.empty,
    (items) =>
      html`${dataTable(list.caption, list.columns, items.map(list.row))}
      ${answer.ok && pager(list.page.path, cursor, answer.body, list.page.keep, list.page.cursorNames)}`,
  );
}
