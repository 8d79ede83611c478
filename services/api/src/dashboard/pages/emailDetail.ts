import { z } from "zod";
import { withQuery } from "../apiCalls.js";
import type { Dashboard, SignedIn } from "../dashboard.js";
import { html } from "../html.js";
import { facts } from "../facts.js";
import { emptyState, errorNotice, timestamp } from "../layout.js";
import { dataTable, listState } from "../lists.js";
import { cursorQuery, pager } from "../pagination.js";
import { frameDocument, frameProblem, sandboxedFrame } from "../sandboxedFrame.js";
import { dashboardPath } from "../sessionCookie.js";
import { timeline, type AuditEventItem } from "../timeline.js";
import { emailActionForms } from "./emailActions.js";
import { emailPath, statusBadge, type EmailListItem } from "./emails.js";

interface EmailObject extends EmailListItem {
  cc: string[] | null;
  bcc: string[] | null;
  reply_to: string[] | null;
  html: string | null;
  text: string | null;
  tags: { name: string; value: string }[];
}

interface Attachment {
  id: string;
  filename: string;
  size: number;
  content_type: string;
  download_url: string;
}

const params = z.object({ id: z.guid() });

/** A timeline's page: the API's most, so that an email's whole timeline is one page unless it was opened or clicked many times. */
const timelinePageSize = 100;

/** The events an email begins with, one of them: the only ones that record the headers it was sent with. */
const firstEventTypes = "EmailQueued,EmailScheduled";

const timelineCursors = { after: "after", before: "before", label: "Timeline pages" };

const addresses = (list: string[] | null) => (list && list.length > 0 ? list.join(", ") : undefined);

/** The headers the email was sent with, which only its first event records. */
const sentHeaders = (first: AuditEventItem | undefined): [string, string][] =>
  Object.entries(((first?.data ?? {}) as { headers?: Record<string, string> }).headers ?? {});

function notFound(who: SignedIn) {
  const title = "Email not found";
  const body = html`<h1>${title}</h1>
    ${errorNotice("There is no email with this id in your team.")}
    <p><a href="${dashboardPath}/emails">All emails</a></p>`;
  return { status: 404, page: who.page(title, "emails", body) };
}

function attachmentTable(files: Attachment[]) {
  const rows = files.map((a) => [
    html`<a href="${a.download_url}" download>${a.filename}</a>`,
    a.content_type,
    html`${a.size.toLocaleString("en")} bytes`,
  ]);
  return dataTable("Attachments", ["File", "Type", "Size"], rows);
}

function headerTable(headers: [string, string][]) {
  if (headers.length === 0) return emptyState("No custom headers.");
  const rows = headers.map(([name, value]) => [html`<span class="mono">${name}</span>`, html`<span class="mono">${value}</span>`]);
  return dataTable("Custom headers", ["Name", "Value"], rows);
}

/**
 * One email: its facts, its body in a sandboxed frame, its headers and attachments, and its timeline
 * from the audit API, a page at a time. Its first event, with the headers, is asked for on its own (the
 * stream's `type` filter), as the timeline's newest page of an email opened hundreds of times lacks it.
 * Another team's email is not found, as in the API, since the API is what answers.
 */
export function emailDetailPage(dashboard: Dashboard): void {
  dashboard.page("/emails/:id", { params, querystring: z.object(cursorQuery) }, async (who, { params: { id }, query }) => {
    const stream = `/audit/streams/email-${id}`;
    const [email, attachments, events, firstEvents] = await Promise.all([
      who.api.get<EmailObject>(`/emails/${id}`),
      who.api.get<{ data: Attachment[] }>(withQuery(`/emails/${id}/attachments`, { limit: 100 })),
      who.api.get<{ has_more: boolean; data: AuditEventItem[] }>(
        withQuery(stream, { limit: timelinePageSize, after: query.after, before: query.before }),
      ),
      who.api.get<{ data: AuditEventItem[] }>(withQuery(stream, { type: firstEventTypes })),
    ]);
    if (!email.ok && email.status === 404) return notFound(who);
    if (!email.ok)
      return who.page(
        "Email",
        "emails",
        html`<h1>Email</h1>
          ${errorNotice("The email could not be loaded.", email.message)}`,
      );
    const e = email.body;
    const first = firstEvents.ok ? firstEvents.body.data.at(-1) : undefined;
    const title = e.subject || "(no subject)";
    const content =
      e.html === null && e.text === null
        ? emptyState("This email's content is no longer kept (erased, or past its retention).")
        : sandboxedFrame(`${emailPath(id)}/content`, "The email's content, without its scripts");
    return who.page(
      title,
      "emails",
      html`<p><a href="${dashboardPath}/emails">← All emails</a></p>
        <h1>${title}</h1>
        <section class="panel" aria-label="Summary">
          ${facts([
            ["Status", statusBadge(e.last_event)],
            ["From", e.from],
            ["To", addresses(e.to)],
            ["Cc", addresses(e.cc)],
            ["Bcc", addresses(e.bcc)],
            ["Reply to", addresses(e.reply_to)],
            ["Created", timestamp(e.created_at)],
            ["Scheduled for", e.scheduled_at && timestamp(e.scheduled_at)],
            ["Tags", e.tags.length > 0 ? e.tags.map((t) => `${t.name}=${t.value}`).join(", ") : undefined],
            ["Id", html`<code>${e.id}</code>`],
          ])}
        </section>
        <h2>Timeline</h2>
        ${
          events.ok
            ? html`${timeline(events.body.data, first)} ${pager(emailPath(id), query, events.body, {}, timelineCursors)}`
            : errorNotice("The timeline could not be loaded.", events.message)
        }
        <h2>Content</h2>
        ${content} ${emailActionForms(id, e.last_event, who.session.csrfToken)}
        <h2>Headers</h2>
        ${firstEvents.ok ? headerTable(sentHeaders(first)) : errorNotice("The headers could not be loaded.", firstEvents.message)}
        <h2>Attachments</h2>
        ${listState(attachments, "The attachments", "No attachments.", attachmentTable)}`,
    );
  });

  // The body is another party's html, served as its own document for the sandboxed frame.
  dashboard.page("/emails/:id/content", { params }, async (who, { params: { id } }) => {
    const email = await who.api.get<EmailObject>(`/emails/${id}`);
    return email.ok ? frameDocument(email.body) : frameProblem(email.status, email.message);
  });
}
