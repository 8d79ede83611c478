import { describe, expect, it } from "vitest";
import { noMetrics, sharedRead } from "./metrics.js";

describe("noMetrics", () => {
  it("is off, and its instruments take every call and keep nothing", () => {
    expect(noMetrics.enabled).toBe(false);
    const counter = noMetrics.counter({ name: "c", help: "c", labels: ["a"] });
    counter.inc({ a: "x" }, 2);
    noMetrics.histogram({ name: "h", help: "h" }).observe({}, 1);
    expect(noMetrics.counter({ name: "other", help: "other" })).toBe(counter);
  });
});

describe("sharedRead", () => {
  it("answers calls within its window with one read, and reads again after it", async () => {
    let reads = 0;
    const read = sharedRead(async () => ++reads, 50);
    expect(await Promise.all([read(), read()])).toEqual([1, 1]);
    await new Promise((resolve) => setTimeout(resolve, 60));
    expect(await read()).toBe(2);
  });

  it("does not keep a failed read", async () => {
    let reads = 0;
    const read = sharedRead(async () => {
      if (++reads === 1) throw new Error("database gone");
      return reads;
    });
    await expect(read()).rejects.toThrow("database gone");
    expect(await read()).toBe(2);
  });
});
