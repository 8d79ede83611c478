import { describe, expect, it } from "vitest";
import { backoffDelayMs, backoffFrom } from "./port.js";

describe("a bus retry backoff", () => {
  it("waits each step after the delivery of its number, then repeats the last", () => {
    const backoff = backoffFrom([100, 200]);
    expect([1, 2, 3, 9].map(backoff)).toEqual([100, 200, 200, 200]);
  });

  it("keeps the default schedule: 1 s, 5 s, 30 s, 2 min, then 10 min", () => {
    expect([1, 2, 3, 4, 5, 10].map(backoffDelayMs)).toEqual([1_000, 5_000, 30_000, 120_000, 600_000, 600_000]);
  });
});
