import type { PageResult, SignedIn } from "./dashboard.js";
import { html } from "./html.js";
import { errorNotice, type NavigationKey } from "./layout.js";

/**
 * The page of one thing the API would not give this key: "not found" (404) for an id the team does not
 * have, another team's included, since the API answers both alike; else the API's error in words.
 */
export function unavailablePage(
  who: SignedIn,
  answer: { status: number; message: string },
  options: { noun: string; active: NavigationKey; back: { href: string; label: string } },
): PageResult {
  const missing = answer.status === 404;
  const noun = options.noun;
  const title = missing ? `${noun[0]!.toUpperCase()}${noun.slice(1)} not found` : `The ${noun} could not be loaded`;
  const notice = missing ? errorNotice(`There is no ${noun} with this id in your team.`) : errorNotice(`${title}.`, answer.message);
  return {
    status: answer.status,
    page: who.page(
      title,
      options.active,
      html`<h1>${title}</h1>
        ${notice}
        <p><a href="${options.back.href}">${options.back.label}</a></p>`,
    ),
  };
}
