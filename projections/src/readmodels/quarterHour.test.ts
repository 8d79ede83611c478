import { describe, expect, it } from "vitest";
import { quarterHour } from "./quarterHour.js";

describe("quarterHour", () => {
  it("given a time inside a quarter hour, answers the quarter hour's start in UTC", () => {
    expect(quarterHour("2026-01-20T18:29:59.999Z")).toBe("2026-01-20T18:15:00.000Z");
    expect(quarterHour("2026-01-20T18:30:00.000Z")).toBe("2026-01-20T18:30:00.000Z");
  });

  it("given a time with an offset or in the wire format, reads it as the instant it names", () => {
    expect(quarterHour("2026-01-21T00:05:00+05:45")).toBe("2026-01-20T18:15:00.000Z");
    expect(quarterHour("2026-11-23 10:07:00.123456+00")).toBe("2026-11-23T10:00:00.000Z");
  });

  it("given a time before 1970, still rounds down", () => {
    expect(quarterHour("1969-12-31T23:59:00Z")).toBe("1969-12-31T23:45:00.000Z");
  });
});
