import { describe, expect, it } from "vitest";
import { START } from "../port.js";
import { AppendSignal } from "./appendSignal.js";
import { postgresSubscription } from "./subscription.js";

describe("a PostgreSQL subscription", () => {
  it("ends its iteration when stopped before its LISTEN is up", async () => {
    const reads: string[] = [];
    const { subscription } = postgresSubscription(
      {
        readPage: () => {
          reads.push("read");
          return Promise.resolve({ events: [], next: START, exhausted: true, horizon: 0n });
        },
        signal: new AppendSignal(),
        listening: new Promise<void>(() => {}),
        batchSize: 10,
        pollIntervalMs: 50,
      },
      {},
    );
    const iterating = (async () => {
      for await (const event of subscription) reads.push(event.id);
      return "ended";
    })();
    await subscription.stop();
    const outcome = await Promise.race([iterating, new Promise((resolve) => setTimeout(() => resolve("still waiting"), 2_000))]);
    expect(outcome).toBe("ended");
    expect(reads).toEqual([]);
  });
});
