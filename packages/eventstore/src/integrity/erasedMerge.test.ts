import { describe, expect, it } from "vitest";
import type { ChainEntry } from "./records.js";
import { ErasedMerge } from "./erasedMerge.js";

const at = (n: bigint): ChainEntry => ({
  streamId: "contact-1",
  revision: n,
  position: { commit: n, prepare: n },
  hash: `h${n}`,
  erased: true,
});

describe("erased events put back in their places", () => {
  it("hands out those before a position, and says when one stood at the position itself, which is the event read there", () => {
    const merge = new ErasedMerge([at(5n), at(2n), at(3n)]);
    expect(merge.before({ commit: 3n, prepare: 3n })).toEqual({ entries: [at(2n)], here: true });
    expect(merge.before({ commit: 4n, prepare: 4n })).toEqual({ entries: [], here: false });
    expect(merge.rest()).toEqual([at(5n)]);
  });
});
