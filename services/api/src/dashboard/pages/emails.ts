import { z } from "zod";
import { emailStatuses, type EmailStatus } from "@tidings/domain";
import { withQuery } from "../apiCalls.js";
import type { Dashboard } from "../dashboard.js";
import { html, type Html } from "../html.js";
import { timestamp } from "../layout.js";
import { anySet, filterForm, selectOption, setFilters } from "../filterForm.js";
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

interface DomainItem {
  id: string;
  name: string;
}

/** The filters of the Emails page as its form sends them; the API checks them and says what is wrong. */
const filterQuery = {
  search: z.string().optional(),
  status: z.string().optional(),
  domain_id: z.string().optional(),
  from: z.string().optional(),
  to: z.string().optional(),
};
type FilterQuery = z.infer<z.ZodObject<typeof filterQuery>>;

/** The day after a `YYYY-MM-DD` date (the form's "to" is inclusive, the API's `created_before` is not); else the text as it is. */
function dayAfter(date: string | undefined): string | undefined {
  if (!date || !/^\d{4}-\d{2}-\d{2}$/.test(date)) return date || undefined;
  const next = new Date(`${date}T00:00:00Z`);
  next.setUTCDate(next.getUTCDate() + 1);
  return Number.isNaN(next.getTime()) ? date : next.toISOString().slice(0, 10);
}

/** The form above the list: search, status, sending domain and a range of days, sent as the page's query. */
function filters(current: FilterQuery, domains: readonly DomainItem[]): Html {
  return filterForm(
    `${dashboardPath}/emails`,
    "Filter the emails",
    html`<div class="field">
        <label for="filter_search">Recipient or subject</label>
        <input id="filter_search" name="search" type="search" value="${current.search ?? ""}" />
      </div>
      <div class="field">
        <label for="filter_status">Status</label>
        <select id="filter_status" name="status">
          ${selectOption("", "Any", current.status)}
          ${emailStatuses.map((status) => selectOption(status, status.replace("_", " "), current.status))}
        </select>
      </div>
      <div class="field">
        <label for="filter_domain">Domain</label>
        <select id="filter_domain" name="domain_id">
          ${selectOption("", "Any", current.domain_id)} ${domains.map((domain) => selectOption(domain.id, domain.name, current.domain_id))}
        </select>
      </div>
      <div class="field">
        <label for="filter_from">From (UTC)</label><input id="filter_from" name="from" type="date" value="${current.from ?? ""}" />
      </div>
      <div class="field">
        <label for="filter_to">To (UTC)</label><input id="filter_to" name="to" type="date" value="${current.to ?? ""}" />
      </div>`,
  );
}

/**
 * The Emails page: the team's sent emails, newest first, a page at a time through the API's cursors, narrowed
 * by the API's filters (docs/wire-compatibility.md §6.1), which the pages' links keep.
 */
export function emailListPage(dashboard: Dashboard): void {
  dashboard.page("/emails", { querystring: z.object({ ...cursorQuery, ...filterQuery }) }, async (who, { query }) => {
    const set = setFilters({
      search: query.search,
      status: query.status,
      domain_id: query.domain_id,
      created_after: query.from,
      created_before: dayAfter(query.to),
    });
    const [answer, domains] = await Promise.all([
      who.api.get<{ has_more: boolean; data: EmailListItem[] }>(
        withQuery("/emails", { limit: listPageSize, after: query.after, before: query.before, ...set }),
      ),
      who.api.get<{ data: DomainItem[] }>("/domains"),
    ]);
    const title = "Emails";
    return who.page(
      title,
      "emails",
      html`<h1>${title}</h1>
        ${filters(query, domains.ok ? domains.body.data : [])}
        ${listState(
          answer,
          "The emails",
          anySet(set) ? "No email matches these filters." : noEmails,
          (emails) =>
            html`${emailTable(emails)}
            ${
              answer.ok &&
              pager(`${dashboardPath}/emails`, query, answer.body, {
                search: query.search,
                status: query.status,
                domain_id: query.domain_id,
                from: query.from,
                to: query.to,
              })
            }`,
        )}`,
    );
  });
}
