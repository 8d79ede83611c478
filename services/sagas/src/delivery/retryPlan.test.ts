import { describe, expect, it } from "vitest";
import { nextAttemptAt } from "./retryPlan.js";

/** DELIVERY_RETRY_BACKOFF_MS's default (issue 4): 1 min, 5 min, 30 min, 2 h, then every 6 h. */
const defaultRetryBackoffMs = [60_000, 300_000, 1_800_000, 7_200_000, 21_600_000];

const first = new Date("2026-01-01T00:00:00Z");
const after = (ms: number) => new Date(first.getTime() + ms);

describe("retry plan for a deferred email", () => {
  it("waits 1 min, 5 min, 30 min, 2 h, then 6 h after successive deferrals", () => {
    const waits = [1, 2, 3, 4, 5, 6].map((attempt) => {
      const now = after(attempt * 1_000);
      return nextAttemptAt({ attempt, firstAttemptAt: first, now, backoffMs: defaultRetryBackoffMs })!.getTime() - now.getTime();
    });
    expect(waits).toEqual([60_000, 300_000, 1_800_000, 7_200_000, 21_600_000, 21_600_000]);
  });

  it("gives up when the next try would fall more than 24 h after the first attempt", () => {
    const now = after(20 * 3_600_000);
    expect(nextAttemptAt({ attempt: 6, firstAttemptAt: first, now, backoffMs: defaultRetryBackoffMs })).toBeNull();
    expect(nextAttemptAt({ attempt: 2, firstAttemptAt: first, now, backoffMs: defaultRetryBackoffMs })).not.toBeNull();
  });
});
