import { describe, expect, it } from "vitest";
import { formatTimestamp, parseTimestamp } from "./timestamp.js";

describe("timestamp format", () => {
  it("prints UTC with six fractional digits and +00", () => {
    expect(formatTimestamp(new Date("2026-03-04T05:06:07.089Z"))).toBe("2026-03-04 05:06:07.089000+00");
  });
  it("carries a microsecond remainder", () => {
    expect(formatTimestamp(new Date("2026-03-04T05:06:07.089Z"), 123)).toBe("2026-03-04 05:06:07.089123+00");
  });
  it("formats each call's own second, whatever the call before it formatted", () => {
    const cases: [string, string][] = [
      ["2026-03-04T05:06:07.089Z", "2026-03-04 05:06:07.089000+00"],
      ["2026-03-04T05:06:07.999Z", "2026-03-04 05:06:07.999000+00"],
      ["2026-03-04T05:06:08.000Z", "2026-03-04 05:06:08.000000+00"],
      ["2026-03-04T05:06:07.001Z", "2026-03-04 05:06:07.001000+00"],
      ["1969-12-31T23:59:59.999Z", "1969-12-31 23:59:59.999000+00"],
      ["2026-03-04T05:06:07.001Z", "2026-03-04 05:06:07.001000+00"],
    ];
    for (const [iso, wire] of cases) expect(formatTimestamp(new Date(iso))).toBe(wire);
  });
  it("parses its own output and rejects other shapes", () => {
    const d = new Date("2026-12-31T23:59:59.999Z");
    expect(parseTimestamp(formatTimestamp(d))?.toISOString()).toBe(d.toISOString());
    expect(parseTimestamp("2026-12-31T23:59:59Z")).toBeUndefined();
  });
});
