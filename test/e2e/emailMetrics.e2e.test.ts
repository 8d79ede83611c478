import { describe, expect, it } from "vitest";
import { serverForFile } from "../support/serverForFile.js";
import { outsideSdkTypes, paced, succeeded } from "../support/wire.js";

/**
 * Email metrics through the official SDK (docs/wire-compatibility.md §6.22): `file.resend.emails.metrics` sends its
 * options as `GET /emails/metrics` query parameters, lists comma-joined, and reads `{object: "metrics", …}`.
 */

const file = serverForFile({ TIDINGS_ALLOW_UNVERIFIED_FROM: "true" });

const message = { from: "Acme <hello@acme.test>", to: ["ann@example.test"], subject: "Your receipt", html: "<p>Total: 42</p>" };

/** Asks until the two emails this file sends are delivered (the outbox transport delivers at once), then answers the metrics. */
async function deliveredMetrics() {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const metrics = await succeeded(() => file.resend.emails.metrics({ metrics: ["sent", "delivered", "delivery_rate", "bounced"] }));
    if (metrics.totals.delivered === 2 || Date.now() > deadline) return metrics;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

describe("file.resend.emails.metrics", () => {
  let first = "";

  it("totals the team's emails of the last days, with rates", async () => {
    first = (await succeeded(() => file.resend.emails.send(message))).id;
    await succeeded(() => file.resend.emails.send(message));
    const metrics = await deliveredMetrics();
    expect(metrics).toMatchObject({
      object: "metrics",
      metrics: ["sent", "delivered", "delivery_rate", "bounced"],
      dimensions: [],
      granularity: "daily",
      totals: { sent: 2, delivered: 2, delivery_rate: 1, bounced: 0 },
    });
    expect(metrics.data).toBeUndefined();
    expect(Date.parse(metrics.end_date) - Date.parse(metrics.start_date)).toBe(6 * 86_400_000);
  });

  it("breaks them down by hour in a timezone half an hour off UTC, and by email", async () => {
    const now = new Date();
    const hourly = await succeeded(() =>
      file.resend.emails.metrics({
        startDate: new Date(now.getTime() - 3 * 3_600_000).toISOString(),
        granularity: "hourly",
        timezone: "Asia/Kolkata",
        dimensions: ["period"],
        metrics: ["sent"],
      }),
    );
    expect(hourly.data!.map((row) => row.period)).toEqual(hourly.data!.map(() => expect.stringMatching(/T\d{2}:00:00\+05:30$/)));
    expect(hourly.data!.reduce((sum, row) => sum + row.sent!, 0)).toBe(2);

    const one = await succeeded(() => file.resend.emails.metrics({ dimensions: ["email"], emailId: [first], metrics: ["sent", "opened"] }));
    expect(one.data).toEqual([{ email_id: first, sent: 1, opened: 0 }]);
  });

  it("refuses email and broadcast together with the contract's error", async () => {
    const refused = await paced(() => outsideSdkTypes.get(file.resend, "/emails/metrics", { dimensions: "email,broadcast" }));
    expect(refused.error).toMatchObject({
      name: "validation_error",
      statusCode: 422,
      message: expect.stringContaining("`email` and `broadcast`"),
    });
  });
});
