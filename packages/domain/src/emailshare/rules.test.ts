import { describe, expect, it } from "vitest";
import { isDomainError } from "../decider.js";
import { DEFAULT_SHARE_LIFETIME_MS, parseShareLifetime } from "./rules.js";

describe("parseShareLifetime", () => {
  it.each([
    ["10m", 600_000],
    ["2 hours", 7_200_000],
    ["1 day", 86_400_000],
    ["48h", 172_800_000],
    ["90 seconds", 90_000],
    ["1.5h", 5_400_000],
    [" 30 MIN ", 1_800_000],
  ])("reads %s", (text, ms) => expect(parseShareLifetime(text)).toBe(ms));

  it("lasts 48 hours when not given", () => expect(parseShareLifetime(undefined)).toBe(DEFAULT_SHARE_LIFETIME_MS));

  it.each([["3 days"], ["49h"], ["0m"], ["soon"], ["10"], ["-1h"], ["1 fortnight"], [""]])("refuses %s, naming expires_in", (text) => {
    const result = parseShareLifetime(text);
    expect(isDomainError(result) && result.name === "validation_error" && result.message.includes("`expires_in`")).toBe(true);
  });
});
