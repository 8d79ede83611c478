import type { PageResult, SignedIn } from "../dashboard.js";
import { html } from "../html.js";
import type { NavigationKey } from "../layout.js";
import { errorNotice } from "../layout.js";

/**
 * A 404 page: what the API did not find for this key, another team's id included, as the API answers
 * those alike. `back` leads to the list the thing would be in.
 */
export function notFoundPage(
  who: SignedIn,
  options: { title: string; message: string; active: NavigationKey; back: { href: string; label: string } },
): PageResult {
  const body = html`<h1>${options.title}</h1>
    ${errorNotice(options.message)}
    <p><a href="${options.back.href}">${options.back.label}</a></p>`;
  return { status: 404, page: who.page(options.title, options.active, body) };
}

/**
 * What a page shows when its one object could not be read: not found (404), or the API's error in words.
 * `undefined` when the answer is the object.
 */
export function unreadable(
  who: SignedIn,
  answer: { ok: false; status: number; message: string },
  options: { what: string; notFound: string; active: NavigationKey; back: { href: string; label: string } },
): PageResult {
  if (answer.status === 404) return notFoundPage(who, { title: `${options.what} not found`, message: options.notFound, ...options });
  const body = html`<h1>${options.what}</h1>
    ${errorNotice(`The ${options.what.toLowerCase()} could not be loaded.`, answer.message)}
    <p><a href="${options.back.href}">${options.back.label}</a></p>`;
  return who.page(options.what, options.active, body);
}
