import { describe, expect, it } from "vitest";
import { randomBase62 } from "@tidings/core";
import { secretStrength } from "./secretStrength.js";

describe("secretStrength", () => {
  it("passes a generated secret", () => {
    expect(secretStrength(randomBase62(40)).strong).toBe(true);
    expect(secretStrength("kq3J+9xV/0aLr2Zt8mWc5YbN1uPe7Hs4GfD6iTo=").strong).toBe(true);
  });

  it("fails a typed one: few distinct characters, or too short an alphabet for its length", () => {
    expect(secretStrength("s".repeat(32)).strong).toBe(false);
    expect(secretStrength("abcabcabcabcabcabcabcabcabcabcabc").strong).toBe(false);
    expect(secretStrength("01234567890123456789012345678901").strong).toBe(false);
  });
});
