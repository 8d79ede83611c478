import { z } from "zod";
import type { EmailStatus } from "@tidings/domain";
import { withQuery } from "../apiCalls.js";
import type { Dashboard } from "../dashboard.js";
import { html, type Html } from "../html.js";
import { timestamp } from "../layout.js";
import { dataTable, listState } from "../lists.js";
import { cursorQuery, listPageSize, pager } from "../pagination.js";
import { dashboardPath } from "../sessionCookie.js";

/** An item of `GET /emails`. */
export interface EmailListItem {
  id: string;
  to: string[];
  from: string;
  subject: string;
  created_at: string;
  last_event: EmailStatus;
  scheduled_at: string | null;
}

const good = new Set<string>(["delivered", "opened", "clicked"] satisfies EmailStatus[]);
const bad = new Set<string>(["bounced", "failed", "suppressed", "complained", "delivery_delayed"] satisfies EmailStatus[]);

/**
 * An email's status as a badge whose colour agrees with its words (the words alone carry the meaning); also
 * a broadcast recipient's, whose statuses are an email's and `planned`.
 */
export const statusBadge = (status: string) =>
  html`<span class="badge${good.has(status) ? " ok" : bad.has(status) ? " bad" : " wait"}">${status.replace("_", " ")}</span>`;

export const emailPath = (id: string) => `${dashboardPath}/emails/${id}`;

/** Emails newest first, each linking to its page. */
export function emailTable(emails: readonly EmailListItem[]): Html {
  const rows = emails.map((email) => [
    html`<a href="${emailPath(email.id)}">${email.subject || "(no subject)"}</a>`,
    email.to.join(", "),
    statusBadge(email.last_event),
    timestamp(email.created_at),
  ]);
  return dataTable("Sent emails, newest first", ["Subject", "To", "Status", "Created"], rows);
}

export const noEmails = html`No emails yet. Send one with <code>POST /emails</code> and it shows here.`;

/** The Emails page: the team's sent emails, newest first, a page at a time through the API's cursors. */
export function emailListPage(dashboard: Dashboard): void {
  dashboard.page("/emails", { querystring: z.object(cursorQuery) }, async (who, { query }) => {
    const answer = await who.api.get<{ has_more: boolean; data: EmailListItem[] }>(
      withQuery("/emails", { limit: listPageSize, after: query.after, before: query.before }),
    );
    const title = "Emails";
    return who.page(
      title,
      "emails",
      html`<h1>${title}</h1>
        ${listState(
          answer,
          "The emails",
          noEmails,
          (emails) => html`${emailTable(emails)} ${answer.ok && pager(`${dashboardPath}/emails`, query, answer.body)}`,
        )}`,
    );
  });
}
