import { describe, expect, it } from "vitest";
import { byUtf8, canonicalJson } from "./canonicalJson.js";

describe("canonical JSON", () => {
  it("sorts keys at every depth and drops what JSON.stringify drops", () => {
    expect(canonicalJson({ b: [{ d: 1, c: undefined }, undefined], a: new Date("2026-01-02T03:04:05.000Z"), f: () => 1 })).toBe(
      '{"a":"2026-01-02T03:04:05.000Z","b":[{"d":1},null]}',
    );
  });

  it("writes numbers as PostgreSQL's numeric does, without an exponent", () => {
    expect(canonicalJson([1e21, 1.5e-7, -2.5e-8, 123e25, -0, 0.1, 1e-6])).toBe(
      "[1000000000000000000000,0.00000015,-0.000000025,1230000000000000000000000000,0,0.1,0.000001]",
    );
    expect(canonicalJson([Number.NaN, Number.POSITIVE_INFINITY])).toBe("[null,null]");
  });

  it("orders keys by their UTF-8 bytes: characters past U+FFFF after U+E000–U+FFFF", () => {
    expect(["𝄞", "\uffff", "z", "é"].sort(byUtf8)).toEqual(["z", "é", "\uffff", "𝄞"]);
  });
});
