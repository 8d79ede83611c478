import { z } from "zod";
import type { ContactItem } from "../../queries/contacts.js";
import type { Dashboard } from "../dashboard.js";
import { html } from "../html.js";
import { timestamp } from "../layout.js";
import { pagedList } from "../pagedList.js";
import { cursorQuery } from "../pagination.js";
import { audiencePage, audiencePath } from "./audienceTabs.js";

export const contactPath = (id: string) => `${audiencePath}/contacts/${id}`;
export const fullName = (c: Pick<ContactItem, "first_name" | "last_name">) => [c.first_name, c.last_name].filter(Boolean).join(" ");

const row = (c: ContactItem) => [
  html`<a href="${contactPath(c.id)}">${c.email}</a>`,
  fullName(c) || html`<span class="muted">—</span>`,
  c.unsubscribed ? html`<span class="badge bad">unsubscribed</span>` : html`<span class="badge ok">subscribed</span>`,
  timestamp(c.created_at),
];

/** Contacts newest first, a page at a time, found by a part of their email or name (`search`, a Tidings extension). */
export function contactListPage(dashboard: Dashboard): void {
  const searchQuery = z.object({ ...cursorQuery, q: z.string().max(320).optional() });
  dashboard.page("/audience", { querystring: searchQuery }, async (who, { query }) => {
    const search = query.q?.trim() || undefined;
    const empty = search
      ? html`No contact's email or name contains “${search}”.`
      : html`No contacts yet. Add them with <code>POST /contacts</code>, or import a CSV under
          <a href="${audiencePath}/imports">Imports</a>.`;
    return audiencePage(
      who,
      "Contacts",
      "contacts",
      html`<form method="get" action="${audiencePath}" role="search" class="panel">
          <div class="fields">
            <div class="field">
              <label for="contact_search">Email or name contains</label>
              <input id="contact_search" name="q" type="search" maxlength="320" value="${search ?? ""}" />
            </div>
            <div class="field"><button type="submit">Search</button></div>
            ${search && html`<div class="field"><a class="button secondary" href="${audiencePath}">Show all</a></div>`}
          </div>
        </form>
        ${await pagedList(who, query, {
          api: { path: "/contacts", query: { search } },
          page: { path: audiencePath, keep: { q: search } },
          what: "The contacts",
          empty,
          caption: search ? `Contacts whose email or name contains ${search}` : "Contacts, newest first",
          columns: ["Email", "Name", "Broadcasts", "Added"],
          row,
        })}`,
    );
  });
}
