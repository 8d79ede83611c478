import { describe, expect, it } from "vitest";
import { deferred } from "./testing/deferred.js";
import { Slots } from "./slots.js";

describe("Slots", () => {
  it("runs at most its size at once, and the waiting ones in the order they came", async () => {
    const slots = new Slots(2);
    const gates = [deferred(), deferred(), deferred(), deferred()];
    const started: number[] = [];
    const runs = gates.map((gate, i) =>
      slots.hold(async () => {
        started.push(i);
        await gate.promise;
        return i;
      }),
    );
    await new Promise((resolve) => setImmediate(resolve));
    expect(started).toEqual([0, 1]);
    gates[1]!.resolve();
    await runs[1];
    await new Promise((resolve) => setImmediate(resolve));
    expect(started).toEqual([0, 1, 2]);
    for (const gate of gates) gate.resolve();
    expect(await Promise.all(runs)).toEqual([0, 1, 2, 3]);
    expect(started).toEqual([0, 1, 2, 3]);
  });

  it("frees the slot of a holder that throws", async () => {
    const slots = new Slots(1);
    await expect(slots.hold(async () => Promise.reject(new Error("refused")))).rejects.toThrow("refused");
    expect(await slots.hold(async () => "next")).toBe("next");
  });

  it("gives a freed slot to the one waiting, not to a newcomer", async () => {
    const slots = new Slots(1);
    const first = deferred();
    const order: string[] = [];
    const holding = slots.hold(() => first.promise);
    const waiting = slots.hold(async () => void order.push("waiting"));
    first.resolve();
    await holding;
    const newcomer = slots.hold(async () => void order.push("newcomer"));
    await Promise.all([waiting, newcomer]);
    expect(order).toEqual(["waiting", "newcomer"]);
  });

  it("lets a waiting holder give up its place when its signal aborts, and the slot go to the next in line", async () => {
    const slots = new Slots(1);
    const first = deferred();
    const stopping = new AbortController();
    const order: string[] = [];
    const holding = slots.hold(() => first.promise);
    const leaving = slots.hold(async () => void order.push("left"), stopping.signal);
    const staying = slots.hold(async () => void order.push("stayed"));
    stopping.abort(new Error("stopping"));
    await expect(leaving).rejects.toThrow("stopping");
    first.resolve();
    await Promise.all([holding, staying]);
    expect(order).toEqual(["stayed"]);
    await expect(slots.hold(async () => "ran", stopping.signal)).rejects.toThrow("stopping");
    expect(await slots.hold(async () => "free again")).toBe("free again");
  });

  it("hands freed slots to those that asked to go first, in their order, before the others, and lets one of them give up its place", async () => {
    const slots = new Slots(1);
    const gate = deferred();
    const stopping = new AbortController();
    const order: string[] = [];
    const holding = slots.hold(() => gate.promise);
    const runs = [
      slots.hold(async () => void order.push("bulk 1")),
      slots.hold(async () => void order.push("bulk 2")),
      slots.hold(async () => void order.push("first 1"), undefined, true),
      slots.hold(async () => void order.push("first left"), stopping.signal, true),
      slots.hold(async () => void order.push("first 2"), undefined, true),
    ];
    stopping.abort(new Error("stopping"));
    await expect(runs[3]).rejects.toThrow("stopping");
    gate.resolve();
    await Promise.allSettled([holding, ...runs]);
    expect(order).toEqual(["first 1", "first 2", "bulk 1", "bulk 2"]);
  });
});
