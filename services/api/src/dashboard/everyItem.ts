import { withQuery, type ApiAnswer } from "./apiCalls.js";
import type { SignedIn } from "./dashboard.js";
import { maxPageSize } from "../pagination.js";

/**
 * Every item of a list the API pages, asked for a page of the API's most at a time: for what needs the
 * whole list, where a person is shown one page of it — a select offering each of a team's segments, or a
 * check of a contact's segments. The API's error when a page fails.
 */
export async function everyItem<Item extends { id: string }>(who: SignedIn, path: string): Promise<ApiAnswer<{ data: Item[] }>> {
  const data: Item[] = [];
  let after: string | undefined;
  for (;;) {
    const page = await who.api.get<{ has_more: boolean; data: Item[] }>(withQuery(path, { limit: maxPageSize, after }));
    if (!page.ok) return page;
    data.push(...page.body.data);
    after = page.body.data.at(-1)?.id;
    if (!page.body.has_more || after === undefined) return { ok: true, status: page.status, body: { data } };
  }
}
