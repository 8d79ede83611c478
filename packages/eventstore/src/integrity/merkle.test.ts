import { describe, expect, it } from "vitest";
import { headsRoot } from "./merkle.js";

describe("the Merkle root over stream heads", () => {
  it("gives the root the seals already written hold: leaves sorted by stream id, an odd node carried up", () => {
    // Computed apart, with one sha256 per leaf and node over the parts named in merkle.ts.
    const heads = new Map([
      ["email-b", { revision: 2n, hash: "bb" }],
      ["email-a", { revision: 0n, hash: "aa" }],
      ["contact-é", { revision: 7n, hash: "cc" }],
    ]);
    expect(headsRoot(heads)).toBe("c3aee2a15146524b95c8138bc6d41fb390fb2c456d65467f0748abf308c22c66");
  });

  it("is empty for no heads", () => {
    expect(headsRoot(new Map())).toBe("");
  });
});
