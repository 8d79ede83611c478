import { z } from "zod";
import type { Dashboard } from "../dashboard.js";
import { html } from "../html.js";
import { timestamp } from "../layout.js";
import { pagedList } from "../pagedList.js";
import { cursorQuery } from "../pagination.js";
import { audiencePage, audiencePath } from "./audienceTabs.js";

interface PropertyItem {
  id: string;
  key: string;
  type: string;
  fallback_value: string | number | null;
  created_at: string;
}

const row = (p: PropertyItem) => [
  html`<span class="mono">${p.key}</span>`,
  p.type,
  p.fallback_value === null ? html`<span class="muted">none</span>` : String(p.fallback_value),
  timestamp(p.created_at),
];

/** The team's contact properties, a page at a time: the keys a contact may have values for. */
export function contactPropertyPages(dashboard: Dashboard): void {
  dashboard.page("/audience/properties", { querystring: z.object(cursorQuery) }, async (who, { query }) => {
    const list = await pagedList(who, query, {
      api: { path: "/contact-properties" },
      page: { path: `${audiencePath}/properties` },
      what: "The contact properties",
      empty: html`No contact properties yet. Create one with <code>POST /contact-properties</code>.`,
      caption: "Contact properties, newest first",
      columns: ["Key", "Type", "Fallback", "Created"],
      row,
    });
    return audiencePage(who, "Properties", "properties", list);
  });
}
