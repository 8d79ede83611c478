import { describe, expect, it } from "vitest";
import { mergedProjection } from "./mergedProjection.js";
import { dataTypesOf, type Projection } from "./projection.js";

const part = (name: string, version: number, type: string): Projection => ({
  name,
  version,
  tables: { [name]: { columns: { id: { type: "uuid" } }, primaryKey: ["id"] } },
  handlers: { [type]: () => {} },
});

describe("mergedProjection", () => {
  it("takes every part's tables and handlers, and the sum of their versions", () => {
    const merged = mergedProjection("both", [part("a", 1, "A"), part("b", 2, "B")]);
    expect(merged.name).toBe("both");
    expect(merged.version).toBe(3);
    expect(Object.keys(merged.tables)).toEqual(["a", "b"]);
    expect(Object.keys(merged.handlers)).toEqual(["A", "B"]);
  });
  it("refuses two parts handling one event type", () => {
    expect(() => mergedProjection("clash", [part("a", 1, "A"), part("b", 1, "A")])).toThrow(/both handle A/);
  });
  it("reads the data of its parts' types, or of every type once a part's \"*\" handler reads data", () => {
    const heads: Projection = { ...part("heads", 1, "*"), anyTypeReadsData: false };
    const audit = part("audit", 1, "*");
    expect(dataTypesOf(mergedProjection("typed", [part("a", 1, "A"), heads]))).toEqual(new Set(["A"]));
    expect(dataTypesOf(mergedProjection("all", [part("a", 1, "A"), audit]))).toBeUndefined();
    expect(dataTypesOf(audit)).toBeUndefined();
    expect(dataTypesOf(heads)).toEqual(new Set());
  });
});
