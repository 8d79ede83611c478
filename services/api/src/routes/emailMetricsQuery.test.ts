import { describe, expect, it } from "vitest";
import { TidingsError } from "@tidings/core";
import { metricsQuerySchema, metricsRequest, parseQueryDate } from "./emailMetricsQuery.js";

const now = Date.parse("2026-11-27T18:00:00Z");
const request = (query: Record<string, string | string[]>) => metricsRequest(metricsQuerySchema.parse(query), now);
const refusal = (query: Record<string, string | string[]>) => {
  try {
    request(query);
  } catch (error) {
    if (error instanceof TidingsError) return `${error.code}: ${error.message}`;
    throw error;
  }
  return "accepted";
};
const issue = (query: Record<string, unknown>) => metricsQuerySchema.safeParse(query).error?.issues[0]?.message;

describe("the query of GET /emails/metrics", () => {
  it("given nothing, asks for every metric, in total, over the 6 days before now, by day in UTC", () => {
    expect(request({})).toMatchObject({
      from: Date.parse("2026-11-21T18:00:00Z"),
      to: now,
      timezone: "UTC",
      granularity: "daily",
      dimensions: [],
      domainIds: [],
    });
    expect(request({}).metrics).toHaveLength(22);
  });

  it("given lists comma-separated, repeated or both, reads them in order without duplicates", () => {
    expect(request({ metrics: ["sent,opened", "clicked", "sent"], dimensions: "domain, period" })).toMatchObject({
      metrics: ["sent", "opened", "clicked"],
      dimensions: ["domain", "period"],
    });
  });

  it("given dates, takes a start date as its local midnight and an end date as the whole day, and clamps the future to now", () => {
    const r = request({ start_date: "2026-07-01", end_date: "2026-07-07", timezone: "America/New_York" });
    expect([new Date(r.from).toISOString(), new Date(r.to).toISOString()]).toEqual([
      "2026-07-01T04:00:00.000Z",
      "2026-07-08T04:00:00.000Z",
    ]);
    expect(request({ end_date: "2027-01-01" }).to).toBe(now);
    expect(parseQueryDate("2026-07-01T10:00:00", "Asia/Kolkata", false)).toBe(Date.parse("2026-07-01T04:30:00Z"));
    expect(parseQueryDate("2026-07-01T10:00:00.5+02:00", "UTC", false)).toBe(Date.parse("2026-07-01T08:00:00.500Z"));
    expect(parseQueryDate("2026-02-30", "UTC", false)).toBeUndefined();
    expect(parseQueryDate("0050-01-01", "UTC", false)).toBeUndefined();
  });

  it("given the period dimension, lists every period of the range", () => {
    const r = request({ start_date: "2026-07-01", end_date: "2026-07-03", dimensions: "period,domain" });
    expect(r.periods).toHaveLength(3);
    expect(request({ start_date: "2026-07-01", end_date: "2026-07-03", dimensions: "domain" }).periods).toBeUndefined();
  });

  it("refuses unknown names, more than 100 ids, and ids that are not UUIDs, naming the parameter", () => {
    expect(issue({ metrics: "sent,sends" })).toMatch(/^`metrics` must be among .*; got `sends`\.$/);
    expect(issue({ dimensions: "contact" })).toMatch(/^`dimensions` must be among period, domain, email, broadcast; got `contact`\.$/);
    expect(issue({ email_id: "42" })).toMatch(/^`email_id` must be up to 100 UUIDs; got `42`\.$/);
    const ids = Array.from({ length: 101 }, (_, i) => `00000000-0000-4000-8000-${String(i).padStart(12, "0")}`);
    expect(issue({ domain_id: ids.join(",") })).toBe("`domain_id` must contain at most 100 items.");
  });

  it("refuses the contract's exclusions, bad dates and timezones, and more than 10,000 periods", () => {
    const id = "00000000-0000-4000-8000-000000000001";
    expect(refusal({ dimensions: "email,broadcast" })).toBe("validation_error: `dimensions` cannot hold both `email` and `broadcast`.");
    expect(refusal({ email_id: id, dimensions: "broadcast" })).toMatch(/^validation_error: `email_id` cannot be combined/);
    expect(refusal({ broadcast_id: id, dimensions: "email" })).toMatch(/^validation_error: `broadcast_id` cannot be combined/);
    expect(refusal({ timezone: "+05:30" })).toMatch(/^validation_error: Invalid `timezone`/);
    expect(refusal({ end_date: "last week" })).toMatch(/^validation_error: Invalid `end_date`/);
    expect(refusal({ start_date: "2026-07-02", end_date: "2026-07-01" })).toMatch(/`start_date` must be on or before `end_date`/);
    expect(refusal({ start_date: "2025-01-01", dimensions: "period", granularity: "hourly" })).toMatch(/more than 10000 `hourly` periods/);
    expect(refusal({ start_date: "2025-01-01", dimensions: "period", granularity: "daily" })).toBe("accepted");
  });
});
