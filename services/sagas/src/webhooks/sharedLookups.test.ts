import { describe, expect, it } from "vitest";
import { shareLookups } from "./sharedLookups.js";

describe("shareLookups", () => {
  it("answers callers arriving during a lookup with the next one, which sees what changed before they asked", async () => {
    let state = "before";
    const releases: (() => void)[] = [];
    const calls: string[] = [];
    const lookUp = shareLookups(async (key: string) => {
      const seen = state;
      calls.push(key);
      await new Promise<void>((resolve) => releases.push(resolve));
      return seen;
    });
    const first = lookUp("team");
    state = "after";
    const meanwhile = Array.from({ length: 10 }, () => lookUp("team"));
    const other = lookUp("other team");
    releases.shift()!();
    releases.shift()!();
    await first;
    await new Promise((r) => setTimeout(r, 0));
    releases.shift()!();
    expect(await first).toBe("before");
    expect(new Set(await Promise.all(meanwhile))).toEqual(new Set(["after"]));
    expect(await other).toBe("after");
    expect(calls).toEqual(["team", "other team", "team"]);
  });

  it("starts afresh after a failed lookup", async () => {
    let fail = true;
    const lookUp = shareLookups(async () => {
      if (fail) throw new Error("down");
      return "up";
    });
    await expect(lookUp("k")).rejects.toThrow("down");
    fail = false;
    expect(await lookUp("k")).toBe("up");
  });
});
