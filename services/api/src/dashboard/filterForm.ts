import { html, type Html, type HtmlValue } from "./html.js";

/** A `<select>`'s option, selected when it is the current value (`""` is the "Any" option). */
export const selectOption = (value: string, label: string, current: string | undefined) =>
  html`<option value="${value}" ${value === (current ?? "") ? html`selected` : ""}>${label}</option>`;

/** The form above a list that narrows it: a GET to the list's own page, announced to screen readers as a search. */
export const filterForm = (action: string, label: string, fields: HtmlValue): Html =>
  html`<form method="get" action="${action}" class="panel" role="search" aria-label="${label}">
    <div class="fields">
      ${fields}
      <div class="field"><button type="submit">Filter</button></div>
    </div>
  </form>`;

/** The filters a page's query sets, by their API names; an empty field of the form is no filter. */
export function setFilters<Name extends string>(values: Record<Name, string | undefined>): Record<Name, string | undefined> {
  return Object.fromEntries(Object.entries(values).map(([name, value]) => [name, value || undefined])) as Record<Name, string | undefined>;
}

/** Whether any filter is set: an empty list then says that nothing matches, not that there is nothing. */
export const anySet = (filters: Record<string, string | undefined>) => Object.values(filters).some((value) => value !== undefined);
