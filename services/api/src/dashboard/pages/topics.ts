import { z } from "zod";
import type { Dashboard } from "../dashboard.js";
import { html } from "../html.js";
import { timestamp } from "../layout.js";
import { pagedList } from "../pagedList.js";
import { cursorQuery } from "../pagination.js";
import { audiencePage, audiencePath } from "./audienceTabs.js";

interface TopicItem {
  id: string;
  name: string;
  description: string | null;
  default_subscription: "opt_in" | "opt_out";
  visibility: "public" | "private";
  created_at: string;
}

const row = (t: TopicItem) => [
  t.name,
  t.description ?? "",
  t.default_subscription === "opt_in" ? "Subscribed" : "Opted out",
  t.visibility === "public" ? "On the preference page" : "Private",
  timestamp(t.created_at),
];

/** Topics, a page at a time, with what a contact who never chose gets (`default_subscription`). */
export function topicPages(dashboard: Dashboard): void {
  dashboard.page("/audience/topics", { querystring: z.object(cursorQuery) }, async (who, { query }) => {
    const list = await pagedList(who, query, {
      api: { path: "/topics" },
      page: { path: `${audiencePath}/topics` },
      what: "The topics",
      empty: html`No topics yet. Create one with <code>POST /topics</code>.`,
      caption: "Topics, newest first",
      columns: ["Name", "Description", "By default", "Visibility", "Created"],
      row,
    });
    return audiencePage(who, "Topics", "topics", list);
  });
}
