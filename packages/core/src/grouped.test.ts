import { describe, expect, it } from "vitest";
import { grouped, rowsByInput } from "./grouped.js";

/** A `many` that answers when told to, and records the groups it was given. */
function heldMany() {
  const groups: number[][] = [];
  const releases: (() => void)[] = [];
  const many = (inputs: number[]) =>
    new Promise<string[]>((resolve, reject) => {
      groups.push(inputs);
      releases.push(() => (inputs.includes(-1) ? reject(new Error("bad input")) : resolve(inputs.map((n) => `#${n}`))));
    });
  // The next group starts once the last has settled, a few microtasks after its answers.
  const releaseNext = async () => {
    releases.shift()!();
    await new Promise((resolve) => setImmediate(resolve));
  };
  return { many, groups, releaseNext };
}

describe("grouped", () => {
  it("sends a call alone when a group is free, and groups the calls that wait, in order, up to max", async () => {
    const { many, groups, releaseNext } = heldMany();
    const call = grouped(many, { inFlight: 1, max: 3 });
    const answers = [1, 2, 3, 4, 5, 6].map(call);
    expect(groups).toEqual([[1]]);
    await releaseNext();
    expect(groups).toEqual([[1], [2, 3, 4]]);
    await releaseNext();
    expect(groups).toEqual([[1], [2, 3, 4], [5, 6]]);
    await releaseNext();
    expect(await Promise.all(answers)).toEqual(["#1", "#2", "#3", "#4", "#5", "#6"]);
  });

  it("keeps inFlight groups going at once", () => {
    const { many, groups } = heldMany();
    const call = grouped(many, { inFlight: 2, max: 10 });
    for (const n of [1, 2, 3, 4]) void call(n);
    expect(groups).toEqual([[1], [2]]);
  });

  it("fails every call of a failed group, and only those", async () => {
    const { many, releaseNext } = heldMany();
    const call = grouped(many, { inFlight: 1, max: 10 });
    const first = call(1);
    const failing = [call(-1), call(2)];
    for (const answer of failing) answer.catch(() => {});
    await releaseNext();
    expect(await first).toBe("#1");
    await releaseNext();
    for (const answer of failing) await expect(answer).rejects.toThrow("bad input");
    const after = call(3);
    await releaseNext();
    expect(await after).toBe("#3");
  });
});

describe("rowsByInput", () => {
  it("hands each input its rows in their order, and an empty list to an input no row names", () => {
    const rows = [
      { ord: 2, v: "c1" },
      { ord: 0, v: "a1" },
      { ord: 2, v: "c2" },
    ];
    expect(
      rowsByInput(
        4,
        rows,
        (r) => r.ord,
        (r) => r.v,
      ),
    ).toEqual([["a1"], [], ["c1", "c2"], []]);
  });
});
