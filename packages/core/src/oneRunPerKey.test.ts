import { describe, expect, it } from "vitest";
import { createOneRunPerKey } from "./oneRunPerKey.js";

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe("one run per key", () => {
  it("runs a second run of a key after the first ends, and runs of other keys beside it", async () => {
    const runs = createOneRunPerKey();
    const log: string[] = [];
    let finishFirst!: () => void;
    const first = runs.run("a", async () => {
      log.push("a1 start");
      await new Promise<void>((resolve) => (finishFirst = resolve));
      log.push("a1 end");
    });
    const second = runs.run("a", async () => void log.push("a2"));
    const other = runs.run("b", async () => void log.push("b"));
    await other;
    await tick();
    expect(log).toEqual(["a1 start", "b"]);
    expect(runs.underWay()).toEqual(["a"]);
    finishFirst();
    await Promise.all([first, second]);
    expect(log).toEqual(["a1 start", "b", "a1 end", "a2"]);
    expect(runs.underWay()).toEqual([]);
  });

  it("runs the next after a run that failed, and gives each caller its own run's outcome", async () => {
    const runs = createOneRunPerKey();
    const failed = runs.run("a", () => Promise.reject(new Error("relay down")));
    const next = runs.run("a", async () => {});
    await expect(failed).rejects.toThrow("relay down");
    await expect(next).resolves.toBeUndefined();
    expect(runs.underWay()).toEqual([]);
  });
});
