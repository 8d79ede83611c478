import { describe, expect, it } from "vitest";
import { metricChart, rangeStart, type MetricsAnswer } from "./metricCharts.js";

const day = (period: string, sent: number) => ({ period, sent, delivered: 0, bounced: 0, complained: 0, opened: 0, clicked: 0 });
const answer = (days: ReturnType<typeof day>[]): MetricsAnswer => ({
  totals: { sent: days.reduce((sum, d) => sum + d.sent, 0), delivered: 0, bounced: 0, complained: 0, opened: 0, clicked: 0 },
  data: days,
});

describe("the Overview's metric charts", () => {
  it("given three days, when charted, then each day is a bar as high as its share of the busiest, titled with its day and count", () => {
    const chart = metricChart(
      "sent",
      answer([day("2026-11-25T00:00:00+00:00", 10), day("2026-11-26T00:00:00+00:00", 0), day("2026-11-27T00:00:00+00:00", 5)]),
    ).text;
    expect([...chart.matchAll(/<rect\s[^>]*height="(\d+)"/g)].map((m) => Number(m[1]))).toEqual([64, 0, 32]);
    expect(chart).toContain("<title>2026-11-25: 10</title>");
    expect(chart).toContain('aria-label="Sent: 15 over 3 days, at most 10 a day"');
    expect(chart).not.toContain("style=");
  });

  it("given no email in the range, then the bars are flat and the label says none", () => {
    const chart = metricChart("sent", answer([day("2026-11-27T00:00:00+00:00", 0)])).text;
    expect(chart).toContain('height="0"');
    expect(chart).toContain('aria-label="Sent: 0 over 1 days, at most 0 a day"');
  });

  it("given today, then a range of seven days starts six days before it, across a month's end", () => {
    expect(rangeStart(new Date("2026-12-03T23:59:00Z"), 7)).toBe("2026-11-27");
    expect(rangeStart(new Date("2026-12-03T00:00:00Z"), 1)).toBe("2026-12-03");
  });
});
