import { z } from "zod";
import { withQuery } from "../apiCalls.js";
import type { Dashboard } from "../dashboard.js";
import { html } from "../html.js";
import { timestamp } from "../layout.js";
import { badge } from "../badges.js";
import { pagedTable } from "../lists.js";
import { cursorQuery, listPageSize } from "../pagination.js";
import { dashboardPath } from "../sessionCookie.js";

/** An item of `GET /templates`. */
export interface TemplateItem {
  id: string;
  name: string;
  alias: string | null;
  status: "draft" | "published";
  published_at: string | null;
  created_at: string;
  updated_at: string;
}

export const templatesPath = `${dashboardPath}/templates`;
export const templatePath = (id: string) => `${templatesPath}/${id}`;

export const templateStatusBadge = (status: TemplateItem["status"]) => badge(status, status === "published" ? "ok" : "wait");

const row = (t: TemplateItem) => [
  html`<a href="${templatePath(t.id)}">${t.name}</a>`,
  t.alias ? html`<code>${t.alias}</code>` : html`<span class="muted">—</span>`,
  templateStatusBadge(t.status),
  timestamp(t.updated_at),
];

/** The team's templates, newest first, each linking to its page with a preview, a page at a time. */
export function templateListPage(dashboard: Dashboard): void {
  dashboard.page("/templates", { querystring: z.object(cursorQuery) }, async (who, { query }) => {
    const title = "Templates";
    const answer = await who.api.get<{ has_more: boolean; data: TemplateItem[] }>(
      withQuery("/templates", { limit: listPageSize, after: query.after, before: query.before }),
    );
    return who.page(
      title,
      "templates",
      html`<h1>${title}</h1>
        ${pagedTable(answer, {
          what: "The templates",
          empty: html`No templates yet. Create one with <code>POST /templates</code> and it shows here.`,
          caption: "Templates, newest first",
          columns: ["Name", "Alias", "Status", "Updated"],
          row,
          path: templatesPath,
          cursor: query,
        })}`,
    );
  });
}
