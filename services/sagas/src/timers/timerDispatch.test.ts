import { describe, expect, it } from "vitest";
import { dispatchTimers } from "./timerDispatch.js";
import type { DueTimer } from "./timers.js";

type Payload = { kind: "ring"; bell: string } | { kind: "knock"; times: number };
const timer = (payload: unknown): DueTimer => ({ key: "k", dueAt: new Date(0), payload, attempt: 1, stillHeld: () => true });
const stopping = new AbortController().signal;

describe("timer dispatch", () => {
  const fired: string[] = [];
  const fire = dispatchTimers<Payload>({
    ring: async (payload) => void fired.push(`ring ${payload.bell}`),
    knock: async (payload) => void fired.push(`knock ${payload.times}`),
  });

  it("hands each payload to the handler of its kind", async () => {
    await fire(timer({ kind: "knock", times: 3 }), stopping);
    await fire(timer({ kind: "ring", bell: "front" }), stopping);
    expect(fired).toEqual(["knock 3", "ring front"]);
  });

  it("throws for a kind it has no handler for, rather than take it for another kind", () => {
    expect(() => fire(timer({ kind: "retry-something", emailId: "e" }), stopping)).toThrow(/no known kind/);
    expect(() => fire(timer(null), stopping)).toThrow(/no known kind/);
    expect(() => fire(timer({ kind: "toString" }), stopping)).toThrow(/no known kind/);
  });
});
