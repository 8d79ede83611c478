import { describe, expect, it } from "vitest";
import { memoryRateBuckets } from "./rateLimitBuckets.js";

describe("memoryRateBuckets", () => {
  const clock = () => {
    let ms = 0;
    return { now: () => ms, advance: (by: number) => void (ms += by) };
  };

  it("lets a full bucket burst up to the limit, then refuses without taking a token", () => {
    const time = clock();
    const buckets = memoryRateBuckets(time.now);
    const decisions = Array.from({ length: 6 }, () => buckets.take("team", 5));
    expect(decisions.map((d) => d.allowed)).toEqual([true, true, true, true, true, false]);
    expect(decisions[4]!.tokens).toBe(0);
    expect(buckets.take("team", 5)).toEqual({ allowed: false, tokens: 0 });
  });

  it("refills at the limit per second, never above the limit", () => {
    const time = clock();
    const buckets = memoryRateBuckets(time.now);
    for (let i = 0; i < 10; i++) buckets.take("team", 10);
    time.advance(250);
    expect(buckets.take("team", 10)).toEqual({ allowed: true, tokens: 1.5 });
    time.advance(60_000);
    expect(buckets.take("team", 10)).toEqual({ allowed: true, tokens: 9 });
  });

  it("keeps one bucket per team", () => {
    const buckets = memoryRateBuckets(clock().now);
    buckets.take("a", 1);
    expect(buckets.take("a", 1).allowed).toBe(false);
    expect(buckets.take("b", 1).allowed).toBe(true);
  });

  it("shrinks a bucket to a lowered limit at once", () => {
    const buckets = memoryRateBuckets(clock().now);
    buckets.take("team", 100);
    expect(buckets.take("team", 2)).toEqual({ allowed: true, tokens: 1 });
  });
});
