import { describe, expect, it } from "vitest";
import { LONGEST_DURATION_MS, parseDuration } from "./duration.js";

describe("parseDuration", () => {
  it.each([
    ["10s", 10_000],
    ["30m", 1_800_000],
    ["12h", 43_200_000],
    ["90d", 7_776_000_000],
    [" 7D ", 604_800_000],
    ["36500d", LONGEST_DURATION_MS],
  ])("reads %j as %d ms", (text, ms) => {
    expect(parseDuration(text)).toBe(ms);
  });

  it.each(["0", "off", "OFF"])("reads %j as kept for ever", (text) => {
    expect(parseDuration(text)).toBeNull();
  });

  it.each(["", "90", "0d", "1.5h", "-1d", "1w", "1d12h", "d", "36501d", "forever"])("refuses %j", (text) => {
    expect(parseDuration(text)).toBeUndefined();
  });
});
