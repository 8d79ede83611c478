import { describe, expect, it } from "vitest";
import { BatchWrites } from "./batchWrites.js";
import type { Projection } from "./projection.js";

const projection: Projection = {
  name: "counters",
  version: 1,
  tables: {
    counters: {
      columns: {
        id: { type: "text" },
        total: { type: "bigint", merge: "add" },
        label: { type: "text", nullable: true },
        first_seen: { type: "bigint", merge: "keep" },
        highest: { type: "bigint", merge: "max" },
      },
      primaryKey: ["id"],
    },
  },
  handlers: {},
};

function rowsOf(writes: BatchWrites) {
  return writes.drain().flatMap((t) => t.rows);
}

describe("BatchWrites", () => {
  it("folds upserts of one row by each column's merge rule", () => {
    const writes = new BatchWrites(projection);
    writes.upsert("counters", { id: "a", total: 1, label: "x", first_seen: 5, highest: 3 });
    writes.upsert("counters", { id: "a", total: 2, label: "y", first_seen: 9, highest: 7 });
    writes.upsert("counters", { id: "a", total: 4n, highest: 4 });
    expect(rowsOf(writes)).toEqual([
      { key: { id: "a" }, deleted: false, upsert: { id: "a", total: 7n, label: "y", first_seen: 5, highest: 7 } },
    ]);
  });

  it("keeps rows of different keys apart", () => {
    const writes = new BatchWrites(projection);
    writes.upsert("counters", { id: "a", total: 1 });
    writes.upsert("counters", { id: "b", total: 1 });
    writes.upsert("counters", { id: "a", total: 1 });
    expect(rowsOf(writes).map((r) => r.upsert)).toEqual([
      { id: "a", total: 2 },
      { id: "b", total: 1 },
    ]);
  });

  it("turns an upsert followed by a delete into a delete", () => {
    const writes = new BatchWrites(projection);
    writes.upsert("counters", { id: "a", total: 1 });
    writes.delete("counters", { id: "a" });
    expect(rowsOf(writes)).toEqual([{ key: { id: "a" }, deleted: true }]);
  });

  it("keeps a delete before a later upsert, so the row starts afresh", () => {
    const writes = new BatchWrites(projection);
    writes.delete("counters", { id: "a" });
    writes.upsert("counters", { id: "a", total: 1 });
    expect(rowsOf(writes)).toEqual([{ key: { id: "a" }, deleted: true, upsert: { id: "a", total: 1 } }]);
  });

  it("drops an update of a row deleted earlier in the batch", () => {
    const writes = new BatchWrites(projection);
    writes.delete("counters", { id: "a" });
    writes.update("counters", { id: "a" }, { total: 5 });
    expect(rowsOf(writes)).toEqual([{ key: { id: "a" }, deleted: true }]);
  });

  it("folds an update into a preceding upsert, and keeps an update before an upsert separate", () => {
    const writes = new BatchWrites(projection);
    writes.upsert("counters", { id: "a", total: 1 });
    writes.update("counters", { id: "a" }, { total: 2, label: "z" });
    writes.update("counters", { id: "b" }, { total: 3 });
    writes.upsert("counters", { id: "b", total: 1 });
    expect(rowsOf(writes)).toEqual([
      { key: { id: "a" }, deleted: false, upsert: { id: "a", total: 3, label: "z" } },
      { key: { id: "b" }, deleted: false, update: { total: 3 }, upsert: { id: "b", total: 1 } },
    ]);
  });

  it("rejects writes to unknown tables and columns, and updates of key columns", () => {
    const writes = new BatchWrites(projection);
    expect(() => writes.upsert("nope", { id: "a" })).toThrow(/no table nope/);
    expect(() => writes.upsert("counters", { id: "a", colour: "red" })).toThrow(/no column colour/);
    expect(() => writes.update("counters", { id: "a" }, { id: "b" })).toThrow(/key column id/);
    expect(() => writes.upsert("counters", { total: 1 })).toThrow(/key column id has no value/);
  });
});
