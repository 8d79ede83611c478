import { z } from "zod";
import { withQuery } from "../apiCalls.js";
import type { Dashboard } from "../dashboard.js";
import { html } from "../html.js";
import { emptyState, errorNotice } from "../layout.js";
import { dashboardPath } from "../sessionCookie.js";
import { listState } from "../lists.js";
import { emailTable, noEmails, type EmailListItem } from "./emails.js";
import { chartedMetrics, metricChart, overviewRanges, rangeStart, type MetricsAnswer } from "./metricCharts.js";

const overviewQuery = z.object({ range: z.enum(overviewRanges.map(String) as [string, ...string[]]).optional() });

/**
 * The first page after signing in: a chart a day of sent, delivered, bounced, complained, opened and clicked
 * emails over the chosen range (from `GET /emails/metrics`, days in UTC), the latest emails, and how many
 * domains are verified.
 */
export function overviewPage(dashboard: Dashboard): void {
  dashboard.page("", { querystring: overviewQuery }, async (who, { query }) => {
    const title = "Overview";
    const days = Number(query.range ?? overviewRanges[0]);
    const [metrics, emails, domains] = await Promise.all([
      who.api.get<MetricsAnswer>(
        withQuery("/emails/metrics", {
          start_date: rangeStart(new Date(), days),
          dimensions: "period",
          granularity: "daily",
          metrics: chartedMetrics.join(","),
        }),
      ),
      who.api.get<{ data: EmailListItem[] }>(withQuery("/emails", { limit: 10 })),
      who.api.get<{ data: { status: string }[] }>("/domains"),
    ]);
    const quiet = metrics.ok && chartedMetrics.every((metric) => metrics.body.totals[metric] === 0);
    const verified = domains.ok ? domains.body.data.filter((d) => d.status === "verified").length : 0;
    return who.page(
      title,
      "overview",
      html`<h1>${title}</h1>
        <form class="range" method="get" action="${dashboardPath}">
          <label
            >Range
            <select name="range">
              ${overviewRanges.map((range) => html`<option value="${range}" ${range === days ? "selected" : ""}>Last ${range} days</option>`)}
            </select></label
          >
          <button type="submit">Show</button>
        </form>
        ${
          metrics.ok
            ? html`${quiet && emptyState(`No emails in the last ${days} days: the charts fill in as emails are sent.`)}
                <div class="charts">${chartedMetrics.map((metric) => metricChart(metric, metrics.body))}</div>`
            : errorNotice("The email metrics could not be loaded.", metrics.message)
        }
        <section class="panel" aria-labelledby="domains-heading">
          <h2 id="domains-heading">Domains</h2>
          ${
            domains.ok
              ? html`<p>
                  ${verified} of ${domains.body.data.length} ${domains.body.data.length === 1 ? "domain is" : "domains are"} verified.
                  <a href="${dashboardPath}/domains">See their DNS records</a>.
                </p>`
              : errorNotice("The domains could not be loaded.", domains.message)
          }
        </section>
        <h2>Latest emails</h2>
        ${listState(emails, "The emails", noEmails, emailTable)}
        <p><a href="${dashboardPath}/emails">All emails</a></p>`,
    );
  });
}
