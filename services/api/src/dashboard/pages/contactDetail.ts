import { z } from "zod";
import type { ContactItem } from "../../queries/contacts.js";
import type { Dashboard } from "../dashboard.js";
import { html } from "../html.js";
import { emptyState, timestamp } from "../layout.js";
import { dataTable } from "../lists.js";
import { pagedList } from "../pagedList.js";
import { audiencePath } from "./audienceTabs.js";
import { contactPath, fullName } from "./contacts.js";
import { unreadable } from "./notFound.js";

interface ContactObject extends ContactItem {
  properties: Record<string, { type: string; value: string | number }>;
}

interface ContactSegment {
  id: string;
  name: string;
  created_at: string;
}

interface ContactTopic {
  id: string;
  name: string;
  description: string | null;
  subscription: "opt_in" | "opt_out";
}

/** The page has two lists, each paged by cursors of its own. */
const cursors = {
  segments: { after: "segments_after", before: "segments_before", label: "Pages of segments" },
  topics: { after: "topics_after", before: "topics_before", label: "Pages of topics" },
} as const;
const listCursors = z.object({
  segments_after: z.guid().optional(),
  segments_before: z.guid().optional(),
  topics_after: z.guid().optional(),
  topics_before: z.guid().optional(),
});

const propertyTable = (properties: ContactObject["properties"]) => {
  const rows = Object.entries(properties).map(([key, p]) => [html`<span class="mono">${key}</span>`, p.type, String(p.value)]);
  return rows.length === 0
    ? emptyState("No property has a value for this contact.")
    : dataTable("The contact's properties", ["Key", "Type", "Value"], rows);
};

const subscription = (topic: ContactTopic) =>
  topic.subscription === "opt_in" ? html`<span class="badge ok">subscribed</span>` : html`<span class="badge bad">opted out</span>`;

/**
 * One contact: its facts and property values, the segments it is in, and every topic with its
 * subscription (its own choice, else the topic's default), as `GET /contacts/:id/topics` answers.
 */
export function contactDetailPage(dashboard: Dashboard): void {
  const params = z.object({ id: z.guid() });
  dashboard.page("/audience/contacts/:id", { params, querystring: listCursors }, async (who, { params: { id }, query }) => {
    const path = contactPath(id);
    // Each list's pager keeps the other list where it is.
    const segmentCursor = { after: query.segments_after, before: query.segments_before };
    const topicCursor = { after: query.topics_after, before: query.topics_before };
    const [contact, segments, topics] = await Promise.all([
      who.api.get<ContactObject>(`/contacts/${id}`),
      pagedList(who, segmentCursor, {
        api: { path: `/contacts/${id}/segments` },
        page: { path, keep: { topics_after: query.topics_after, topics_before: query.topics_before }, cursorNames: cursors.segments },
        what: "The contact's segments",
        empty: "This contact is in no segment.",
        caption: "The contact's segments",
        columns: ["Segment", "Created"],
        row: (s: ContactSegment) => [s.name, timestamp(s.created_at)],
      }),
      pagedList(who, topicCursor, {
        api: { path: `/contacts/${id}/topics` },
        page: { path, keep: { segments_after: query.segments_after, segments_before: query.segments_before }, cursorNames: cursors.topics },
        what: "The contact's topics",
        empty: "The team has no topics.",
        caption: "The contact's subscription to each topic",
        columns: ["Topic", "Description", "Subscription"],
        row: (t: ContactTopic) => [t.name, t.description ?? "", subscription(t)],
      }),
    ]);
    const back = { href: audiencePath, label: "All contacts" };
    if (!contact.ok)
      return unreadable(who, contact, {
        what: "Contact",
        notFound: "There is no contact with this id in your team.",
        active: "audience",
        back,
      });
    const c = contact.body;
    return who.page(
      c.email,
      "audience",
      html`<p><a href="${back.href}">← ${back.label}</a></p>
        <h1>${c.email}</h1>
        <section class="panel" aria-label="Summary">
          <dl class="facts">
            <dt>Name</dt>
            <dd>${fullName(c) || html`<span class="muted">—</span>`}</dd>
            <dt>Broadcasts</dt>
            <dd>${c.unsubscribed ? "Unsubscribed from every broadcast" : "Subscribed"}</dd>
            <dt>Added</dt>
            <dd>${timestamp(c.created_at)}</dd>
            <dt>Id</dt>
            <dd><code>${c.id}</code></dd>
          </dl>
        </section>
        <h2>Properties</h2>
        ${propertyTable(c.properties)}
        <h2>Segments</h2>
        ${segments}
        <h2>Topics</h2>
        ${topics}`,
    );
  });
}
