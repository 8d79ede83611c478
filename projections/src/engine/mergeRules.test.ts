import { describe, expect, it } from "vitest";
import { mergeValues } from "./mergeRules.js";

describe("mergeValues", () => {
  it("adds numbers and bigints, counting NULL as zero", () => {
    expect(mergeValues("add", 2, 3)).toBe(5);
    expect(mergeValues("add", 2n, 3)).toBe(5n);
    expect(mergeValues("add", null, 3)).toBe(3);
    expect(mergeValues("add", 4, null)).toBe(4);
    expect(mergeValues("add", null, null)).toBe(0);
  });

  it("keeps the first non-NULL value", () => {
    expect(mergeValues("keep", "a", "b")).toBe("a");
    expect(mergeValues("keep", null, "b")).toBe("b");
  });

  it("takes the greater or lesser value, ignoring NULL, for numbers, bigints and dates", () => {
    expect(mergeValues("max", 2n, 5n)).toBe(5n);
    expect(mergeValues("min", 2n, 5n)).toBe(2n);
    expect(mergeValues("max", 7, null)).toBe(7);
    const early = new Date("2024-01-01T00:00:00Z");
    const late = new Date("2024-06-01T00:00:00Z");
    expect(mergeValues("max", late, early)).toBe(late);
    expect(mergeValues("min", late, early)).toBe(early);
  });

  it("replaces with the new value, even NULL", () => {
    expect(mergeValues("replace", "a", "b")).toBe("b");
    expect(mergeValues("replace", "a", null)).toBe(null);
  });
});
