import { describe, expect, it } from "vitest";
import { localIso, periodsOf, periodStart, zonedInstant } from "./metricPeriods.js";

const at = (iso: string) => Date.parse(iso);
const iso = (ms: number) => new Date(ms).toISOString();

describe("the periods of email metrics in a timezone", () => {
  it("given Kathmandu (+05:45), puts 23:55 and 00:05 local on two days starting at local midnight", () => {
    expect(iso(periodStart(at("2026-01-20T18:10:00Z"), "daily", "Asia/Kathmandu"))).toBe("2026-01-19T18:15:00.000Z");
    expect(iso(periodStart(at("2026-01-20T18:15:00Z"), "daily", "Asia/Kathmandu"))).toBe("2026-01-20T18:15:00.000Z");
  });

  it("given Kolkata (+05:30), starts local hours at half past UTC hours", () => {
    expect(iso(periodStart(at("2026-03-01T10:15:00Z"), "hourly", "Asia/Kolkata"))).toBe("2026-03-01T09:30:00.000Z");
  });

  it("given New York's fall back, keeps the hour that happens twice as two hourly periods, and the day 25 hours long", () => {
    const first = periodStart(at("2026-11-01T05:30:00Z"), "hourly", "America/New_York");
    const second = periodStart(at("2026-11-01T06:30:00Z"), "hourly", "America/New_York");
    expect([localIso(first, "America/New_York"), localIso(second, "America/New_York")]).toEqual([
      "2026-11-01T01:00:00-04:00",
      "2026-11-01T01:00:00-05:00",
    ]);
    const days = periodsOf(at("2026-11-01T04:00:00Z"), at("2026-11-03T05:00:00Z"), "daily", "America/New_York", 10);
    expect(days!.map(iso)).toEqual(["2026-11-01T04:00:00.000Z", "2026-11-02T05:00:00.000Z"]);
  });

  it("given weeks and months, starts them on Monday and on the 1st, local time", () => {
    // Sunday 2026-03-08 is in the week of Monday 2026-03-02.
    expect(localIso(periodStart(at("2026-03-08T12:00:00Z"), "weekly", "Europe/Berlin"), "Europe/Berlin")).toBe("2026-03-02T00:00:00+01:00");
    expect(localIso(periodStart(at("2026-03-31T23:30:00Z"), "monthly", "Europe/Berlin"), "Europe/Berlin")).toBe(
      "2026-04-01T00:00:00+02:00",
    );
  });

  it("given a range, lists the periods that meet it, and none when they pass the limit", () => {
    const months = periodsOf(at("2026-01-15T00:00:00Z"), at("2026-04-01T00:00:00Z"), "monthly", "UTC", 10);
    expect(months!.map(iso)).toEqual(["2026-01-01T00:00:00.000Z", "2026-02-01T00:00:00.000Z", "2026-03-01T00:00:00.000Z"]);
    expect(periodsOf(at("2026-01-01T00:00:00Z"), at("2026-01-01T05:00:00Z"), "hourly", "UTC", 4)).toBeUndefined();
    expect(periodsOf(at("2000-01-01T00:00:00Z"), at("2026-01-01T00:00:00Z"), "hourly", "UTC", 10_000)).toBeUndefined();
  });

  it("given a local time skipped by summer time, reads it with the offset from before", () => {
    // 02:30 does not happen in New York on 2026-03-08; read at -05:00 it is 07:30Z.
    expect(iso(zonedInstant("America/New_York", 2026, 3, 8, 2, 30))).toBe("2026-03-08T07:30:00.000Z");
  });
});
