import { describe, expect, it } from "vitest";
import { newestEntries } from "./newestEntries.js";

describe("newestEntries", () => {
  it("keeps the last entries inserted, in their order, less those no longer good", () => {
    const cache = new Map([1, 2, 3, 4, 5].map((n) => [`k${n}`, n]));
    cache.delete("k2");
    cache.set("k2", 2);
    expect([...newestEntries(cache, 3)]).toEqual([
      ["k4", 4],
      ["k5", 5],
      ["k2", 2],
    ]);
    expect([...newestEntries(cache, 3, (n) => n !== 5)]).toEqual([
      ["k4", 4],
      ["k2", 2],
    ]);
    expect(newestEntries(cache, 3)).not.toBe(cache);
    expect(newestEntries(cache, 0).size).toBe(0);
  });
});
