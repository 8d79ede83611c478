import { describe, expect, it } from "vitest";
import { OrderedWindow, unwrap } from "./orderedWindow.js";

const later = <T>(value: T, ms: number) => new Promise<T>((resolve) => setTimeout(() => resolve(value), ms));

describe("OrderedWindow", () => {
  it("hands results back in the order the work was added, whatever order it finishes in", async () => {
    const window = new OrderedWindow<number>(3);
    const taken: number[] = [];
    for (const [value, ms] of [
      [1, 30],
      [2, 5],
      [3, 20],
      [4, 1],
      [5, 10],
    ] as const) {
      const oldest = window.add(undefined, () => later(value, ms));
      if (oldest) taken.push(unwrap(await oldest));
    }
    for (let next = window.next(); next; next = window.next()) taken.push(unwrap(await next));
    expect(taken).toEqual([1, 2, 3, 4, 5]);
  });

  it("keeps at most `size` pieces of work under way", async () => {
    const window = new OrderedWindow<void>(2);
    let running = 0;
    let most = 0;
    const work = async () => {
      most = Math.max(most, ++running);
      await later(undefined, 2);
      running--;
    };
    for (let i = 0; i < 10; i++) {
      const oldest = window.add(undefined, work);
      if (oldest) unwrap(await oldest);
    }
    await window.settle();
    expect(most).toBeLessThanOrEqual(3);
    expect(most).toBeGreaterThan(1);
  });

  it("runs work of one key one after the other, in order, and other keys beside it", async () => {
    const window = new OrderedWindow<void>(10);
    const log: string[] = [];
    const step = (name: string, ms: number) => async () => {
      log.push(`${name} starts`);
      await later(undefined, ms);
      log.push(`${name} ends`);
    };
    void window.add("a", step("a1", 20));
    void window.add("b", step("b1", 1));
    void window.add("a", step("a2", 1));
    await window.settle();
    expect(log.indexOf("a2 starts")).toBeGreaterThan(log.indexOf("a1 ends"));
    expect(log.indexOf("b1 ends")).toBeLessThan(log.indexOf("a1 ends"));
  });

  it("keeps a failure for when its result is taken, and runs the next work of its key anyway", async () => {
    const window = new OrderedWindow<string>(10);
    void window.add("a", async () => Promise.reject(new Error("broken row")));
    void window.add("a", async () => "next");
    const first = window.next()!;
    await expect(first.then(unwrap)).rejects.toThrow("broken row");
    expect(unwrap(await window.next()!)).toBe("next");
  });
});
