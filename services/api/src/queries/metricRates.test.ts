import { describe, expect, it } from "vitest";
import { emailMetricCounters } from "@tidings/projections";
import { metricValues, type Counts } from "./metricRates.js";

const counts = (some: Partial<Counts>): Counts => ({ ...(Object.fromEntries(emailMetricCounters.map((c) => [c, 0])) as Counts), ...some });

describe("metric values", () => {
  it("given counts, shares delivered and bounced of sent, and engagement and complaints of delivered", () => {
    const values = metricValues(
      counts({ sent: 3, delivered: 2, bounced_permanent: 1, unique_opened: 1, unique_clicked: 2, complained: 1 }),
      ["delivery_rate", "bounce_rate", "open_rate", "click_rate", "complaint_rate", "unsubscribe_rate"],
    );
    expect(values).toEqual({
      delivery_rate: 0.6667,
      bounce_rate: 0.3333,
      open_rate: 0.5,
      click_rate: 1,
      complaint_rate: 0.5,
      unsubscribe_rate: 0,
    });
  });

  it("given nothing sent or delivered, answers rates of 0 rather than NaN", () => {
    expect(metricValues(counts({ opened: 4 }), ["open_rate", "delivery_rate", "opened"])).toEqual({
      open_rate: 0,
      delivery_rate: 0,
      opened: 4,
    });
  });

  it("given bounces of each kind, counts bounced as all of them, and only the metrics asked for", () => {
    const values = metricValues(counts({ bounced_permanent: 1, bounced_transient: 2, bounced_undetermined: 3 }), [
      "bounced",
      "bounced_transient",
    ]);
    expect(values).toEqual({ bounced: 6, bounced_transient: 2 });
  });
});
