import { z } from "zod";
import { html, type Html } from "./html.js";
import { withQuery } from "./apiCalls.js";

/** The page size of every dashboard list, asked of the API's cursor pagination. */
export const listPageSize = 25;

/** `after`/`before` as the API takes them; an id that is not a uuid is refused here, as there. */
export const cursorQuery = { after: z.guid().optional(), before: z.guid().optional() };

/** A list's cursors' query names and its navigation's name, where a page holds two lists. */
export interface CursorNames {
  after: string;
  before: string;
  label: string;
}

export interface Cursor {
  after?: string | undefined;
  before?: string | undefined;
}

/**
 * "Newer" and "Older" links for a page of a list, newest first (docs/wire-compatibility.md §2.1): the API's
 * `has_more` says whether there is more in the direction the page was asked in, and the other direction
 * has more whenever the page was reached by a cursor. `keep` carries the page's filters along. A page with
 * two lists pages each with cursors of its own names, in a navigation of its own name.
 */
export function pager(
  path: string,
  cursor: Cursor,
  page: { has_more: boolean; data: readonly { id: string }[] },
  keep: Record<string, string | undefined> = {},
  names: CursorNames = { after: "after", before: "before", label: "Pages" },
): Html {
  const first = page.data[0]?.id;
  const last = page.data.at(-1)?.id;
  const newer = cursor.before !== undefined ? page.has_more : cursor.after !== undefined;
  const older = cursor.before !== undefined ? true : page.has_more;
  if (!first || (!newer && !older)) return html``;
  return html`<nav class="pager" aria-label="${names.label}">
    ${newer && html`<a class="button secondary" href="${withQuery(path, { ...keep, [names.before]: first })}">← Newer</a>`}
    ${older && html`<a class="button secondary" href="${withQuery(path, { ...keep, [names.after]: last })}">Older →</a>`}
  </nav>`;
}
