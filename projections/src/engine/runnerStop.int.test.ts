import { describe, expect, it } from "vitest";
import { testMode } from "@tidings/postgres";
import { storeOnTestDatabase } from "../testing/storeOnTestDatabase.js";
import { aCountingProjection, aName } from "../testing/testBuilders.js";

const env = storeOnTestDatabase();

/** How long a stop may take before it counts as held up: far more than a stop needs on a loaded machine. */
const stopBoundMs = 20_000;

describe(`projection runner stop (${testMode()})`, () => {
  it("stops promptly however soon after its start, with projections still going live", { timeout: 300_000 }, async () => {
    const outcomes: string[] = [];
    for (const delayMs of [0, 10, 30, 60, 100, 200, 400]) {
      const running = await env.start(
        Array.from({ length: 8 }, () => aCountingProjection(aName())),
        { lockRetryMs: 100, retryMs: 50 },
      );
      await new Promise((resolve) => setTimeout(resolve, delayMs));
      const stopped = running.stop().then(() => "stopped");
      const outcome = await Promise.race([stopped, new Promise((resolve) => setTimeout(() => resolve("held up"), stopBoundMs))]);
      outcomes.push(`${delayMs} ms: ${String(outcome)}`);
    }
    expect(outcomes.filter((o) => !o.endsWith("stopped"))).toEqual([]);
  });
});
