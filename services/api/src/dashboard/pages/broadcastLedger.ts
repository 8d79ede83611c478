import { withQuery } from "../apiCalls.js";
import type { SignedIn } from "../dashboard.js";
import { html, type Html } from "../html.js";
import { dataTable, listState } from "../lists.js";
import { listPageSize, pager, type Cursor } from "../pagination.js";
import { broadcastPath } from "./broadcasts.js";
import { emailPath, statusBadge } from "./emails.js";

interface Recipient {
  /** The recipient's email's id. */
  id: string;
  email: string;
  status: string;
  bounce_type?: string;
}

interface ClickedLink {
  id: string;
  url: string;
  clicks: number;
  unique_clicks: number;
}

/** The clicked links' cursors: the recipients' are `after`/`before`, on the same page. */
export const linkCursorNames = { after: "links_after", before: "links_before", label: "Pages of clicked links" } as const;

export interface LedgerQuery extends Cursor {
  links_after?: string | undefined;
  links_before?: string | undefined;
}

/** A planned recipient has no email yet: there is no page to link to. */
const recipientRow = (r: Recipient) => [
  r.status === "planned" ? r.email : html`<a href="${emailPath(r.id)}">${r.email}</a>`,
  html`${statusBadge(r.status)}${r.bounce_type && html` <span class="muted">(${r.bounce_type})</span>`}`,
];

const linkRow = (l: ClickedLink) => [html`<span class="mono">${l.url}</span>`, String(l.clicks), String(l.unique_clicks)];

/**
 * A broadcast's recipients (its emails, each with its status) and its tracked links by people's clicks,
 * from `GET /broadcasts/:id/recipients` and `…/clicked-links`. Each list pages on its own cursors and
 * carries the other's along.
 */
export async function broadcastLedger(who: SignedIn, id: string, query: LedgerQuery): Promise<Html> {
  const [recipients, links] = await Promise.all([
    who.api.get<{ has_more: boolean; data: Recipient[] }>(
      withQuery(`/broadcasts/${id}/recipients`, { limit: listPageSize, after: query.after, before: query.before }),
    ),
    who.api.get<{ has_more: boolean; data: ClickedLink[] }>(
      withQuery(`/broadcasts/${id}/clicked-links`, { limit: listPageSize, after: query.links_after, before: query.links_before }),
    ),
  ]);
  const path = broadcastPath(id);
  const keepLinks = { links_after: query.links_after, links_before: query.links_before };
  const keepRecipients = { after: query.after, before: query.before };
  return html`<section aria-labelledby="recipients-heading">
      <h2 id="recipients-heading">Recipients</h2>
      ${listState(
        recipients,
        "The recipients",
        "No recipients yet: they are chosen from the segment when sending starts.",
        (rows) =>
          html`${dataTable("Recipients and the status of their email", ["Email", "Status"], rows.map(recipientRow))}
          ${recipients.ok && pager(path, query, recipients.body, keepLinks)}`,
      )}
    </section>
    <section aria-labelledby="links-heading">
      <h2 id="links-heading">Clicked links</h2>
      ${listState(
        links,
        "The clicked links",
        "No link was clicked yet. Clicks are counted on the sending domain's tracked links, people's only.",
        (rows) =>
          html`${dataTable("Clicked links, most clicked first", ["Link", "Clicks", "People"], rows.map(linkRow))}
          ${links.ok && pager(path, { after: query.links_after, before: query.links_before }, links.body, keepRecipients, linkCursorNames)}`,
      )}
    </section>`;
}
