import type { ApiAnswer } from "./apiCalls.js";
import { html, type Html, type HtmlValue } from "./html.js";
import { csrfField, emptyState, errorNotice } from "./layout.js";
import { pager, type Cursor, type CursorNames } from "./pagination.js";

/**
 * A table with its caption for screen readers and a header cell per column (`""` names a column of
 * buttons, for screen readers only). On a phone each row becomes a card whose cells carry their column's
 * name (`data-label`, shown by the style sheet), as a row of long values (a DKIM key) cannot fit 375 px.
 */
export function dataTable(caption: string, columns: readonly string[], rows: readonly (readonly HtmlValue[])[]): Html {
  const label = (i: number) => columns[i] ?? "";
  return html`<div class="table-wrap">
    <table>
      <caption class="sr-only">
        ${caption}
      </caption>
      <thead>
        <tr>
          ${columns.map((column) => html`<th scope="col">${column || html`<span class="sr-only">Actions</span>`}</th>`)}
        </tr>
      </thead>
      <tbody>
        ${rows.map(
          (cells) =>
            html`<tr>
              ${cells.map((cell, i) => html`<td data-label="${label(i)}"><span>${cell}</span></td>`)}
            </tr>`,
        )}
      </tbody>
    </table>
  </div>`;
}

/**
 * A list's three states: the API's error in words, words saying it is empty, or the list itself.
 * `what` names the list in the error ("The API keys").
 */
export function listState<Item>(answer: ApiAnswer<{ data: Item[] }>, what: string, empty: HtmlValue, show: (items: Item[]) => Html): Html {
  if (!answer.ok) return errorNotice(`${what} could not be loaded.`, answer.message);
  return answer.body.data.length === 0 ? emptyState(empty) : show(answer.body.data);
}

/** A small form with one button that posts to `action`, after the browser asks `question` (script.ts). */
export function confirmedButton(options: { action: string; csrfToken: string; label: string; name: string; question: string }): Html {
  return html`<form class="inline" method="post" action="${options.action}" data-confirm="${options.question}">
    ${csrfField(options.csrfToken)}<button class="danger small" type="submit" aria-label="${`${options.label} ${options.name}`}">
      ${options.label}
    </button>
  </form>`;
}

/** One page of a list the API pages with cursors, newest first: its three states (`listState`), its table and its pager. */
export function pagedTable<Item extends { id: string }>(
  answer: ApiAnswer<{ has_more: boolean; data: Item[] }>,
  list: {
    what: string;
    empty: HtmlValue;
    caption: string;
    columns: readonly string[];
    row: (item: Item) => readonly HtmlValue[];
    path: string;
    cursor: Cursor;
    /** The page's filters, which its links keep. */
    keep?: Record<string, string | undefined>;
    /** The cursors' own query names, on a page with two lists (`pager`). */
    cursorNames?: CursorNames;
  },
): Html {
  return listState(
    answer,
    list.what,
    list.empty,
    (items) =>
      html`${dataTable(list.caption, list.columns, items.map(list.row))}
      ${answer.ok && pager(list.path, list.cursor, answer.body, list.keep, list.cursorNames)}`,
  );
}
