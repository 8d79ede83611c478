import { html, type Html } from "../html.js";

/** What the Overview charts, in the order shown: the six, each a metric name of `GET /emails/metrics`. */
export const chartedMetrics = ["sent", "delivered", "bounced", "complained", "opened", "clicked"] as const;
export type ChartedMetric = (typeof chartedMetrics)[number];

/** The ranges a person picks from, in days, ending today (UTC). */
export const overviewRanges = [7, 30, 90] as const;

export interface MetricsAnswer {
  totals: Record<ChartedMetric, number>;
  data?: ({ period: string } & Record<ChartedMetric, number>)[];
}

const labels: Record<ChartedMetric, string> = {
  sent: "Sent",
  delivered: "Delivered",
  bounced: "Bounced",
  complained: "Complained",
  opened: "Opened",
  clicked: "Clicked",
};

/** `start_date` for a range of `days` ending on `today`'s date, both whole UTC days. */
export function rangeStart(today: Date, days: number): string {
  const start = new Date(Date.UTC(today.getUTCFullYear(), today.getUTCMonth(), today.getUTCDate() - (days - 1)));
  return start.toISOString().slice(0, 10);
}

const width = 300;
const height = 64;

/**
 * One metric's daily counts as bars in an inline SVG: sized by attributes and coloured by class, since the
 * dashboard's CSP allows no inline style. Each bar's `<title>` names its day and count, and the figure's
 * label says the total, for a screen reader.
 */
export function metricChart(metric: ChartedMetric, answer: MetricsAnswer): Html {
  const days = answer.data ?? [];
  const most = Math.max(0, ...days.map((day) => day[metric]));
  const highest = Math.max(1, most);
  const step = days.length > 0 ? width / days.length : width;
  const gap = step > 4 ? 1 : 0;
  const bars = days.map((day, i) => {
    const barHeight = day[metric] === 0 ? 0 : Math.max(1, Math.round((day[metric] / highest) * height));
    return html`<rect
      x="${(i * step).toFixed(2)}"
      y="${height - barHeight}"
      width="${Math.max(0.5, step - gap).toFixed(2)}"
      height="${barHeight}"
      ><title>${day.period.slice(0, 10)}: ${day[metric]}</title></rect
    >`;
  });
  const label = `${labels[metric]}: ${answer.totals[metric]} over ${days.length} days, at most ${most} a day`;
  return html`<figure class="chart chart-${metric}">
    <figcaption><span>${labels[metric]}</span> <strong>${answer.totals[metric]}</strong></figcaption>
    <svg viewBox="0 0 ${width} ${height}" preserveAspectRatio="none" role="img" aria-label="${label}">
      <line class="chart-base" x1="0" y1="${height - 0.5}" x2="${width}" y2="${height - 0.5}"></line>
      ${bars}
    </svg>
  </figure>`;
}
