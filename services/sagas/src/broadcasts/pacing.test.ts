import { describe, expect, it } from "vitest";
import { InFlightWindow } from "./pacing.js";

describe("InFlightWindow", () => {
  it("starts at its minimum, then holds about a second of what delivery settles, within its maximum", () => {
    const window = new InFlightWindow(1_000, 50);
    expect(window.limit(0, 0)).toBe(50);
    expect(window.limit(100, 1_000)).toBe(100);
    expect(window.limit(400, 2_000)).toBe(200);
    expect(window.limit(5_000, 3_000)).toBe(1_000);
  });

  it("shrinks when delivery slows down, to the rate of the last few seconds", () => {
    const window = new InFlightWindow(1_000, 10, 1_000, 2_000);
    window.limit(0, 0);
    window.limit(800, 1_000);
    window.limit(1_600, 2_000);
    expect(window.limit(1_650, 4_000)).toBe(25);
    expect(window.limit(1_650, 7_000)).toBe(10);
  });
});
