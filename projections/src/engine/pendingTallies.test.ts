import { describe, expect, it } from "vitest";
import { BatchWrites } from "./batchWrites.js";
import type { Projection, TallyThrough } from "./projection.js";

const projection: Projection = {
  name: "tallies",
  version: 1,
  tables: {
    emails: {
      columns: { id: { type: "text" }, domain: { type: "text" }, opened_at: { type: "timestamptz", nullable: true } },
      primaryKey: ["id"],
    },
    per_domain: {
      columns: {
        domain: { type: "text" },
        hour: { type: "integer" },
        opens: { type: "bigint", merge: "add" },
        last: { type: "integer", merge: "max" },
        label: { type: "text", nullable: true },
      },
      primaryKey: ["domain", "hour"],
    },
  },
  handlers: {},
};

const byDomainOf = (id: string): TallyThrough => ({ table: "emails", key: { id }, columns: { domain: "domain" } });
const firstOpenOf = (id: string, at: string): TallyThrough => ({ ...byDomainOf(id), once: { column: "opened_at", value: at } });

describe("tallies in a batch", () => {
  it("given tallies of one email and hour, when drained, then they are folded into one, after the row writes", () => {
    const writes = new BatchWrites(projection);
    writes.tally("per_domain", byDomainOf("e1"), { hour: 1, opens: 1, last: 3 });
    writes.upsert("emails", { id: "e1", domain: "a.test" });
    writes.tally("per_domain", byDomainOf("e1"), { hour: 1, opens: 1, last: 5 });
    writes.tally("per_domain", byDomainOf("e1"), { hour: 2, opens: 1, last: 1 });
    const drained = writes.drain();
    expect(drained.map((t) => [t.table, t.rows.length, t.tallies.length])).toEqual([
      ["emails", 1, 0],
      ["per_domain", 0, 2],
    ]);
    expect(drained[1]!.tallies.map((t) => t.row)).toEqual([
      { hour: 1, opens: 2, last: 5 },
      { hour: 2, opens: 1, last: 1 },
    ]);
  });

  it("given two tallies counted once for one email, when drained, then the first is kept whatever its hour", () => {
    const writes = new BatchWrites(projection);
    writes.tally("per_domain", firstOpenOf("e1", "2026-01-01T01:00:00Z"), { hour: 1, opens: 1 });
    writes.tally("per_domain", firstOpenOf("e1", "2026-01-01T02:00:00Z"), { hour: 2, opens: 1 });
    writes.tally("per_domain", firstOpenOf("e2", "2026-01-01T02:00:00Z"), { hour: 2, opens: 1 });
    const [tallied] = writes.drain();
    expect(tallied!.tallies.map((t) => [t.through.key, t.row])).toEqual([
      [{ id: "e1" }, { hour: 1, opens: 1 }],
      [{ id: "e2" }, { hour: 2, opens: 1 }],
    ]);
  });

  it("rejects a tally that leaves a key column unknown, replaces a value, or counts once on a required column", () => {
    const writes = new BatchWrites(projection);
    expect(() => writes.tally("per_domain", byDomainOf("e1"), { opens: 1 })).toThrow(/key column hour has no value/);
    expect(() => writes.tally("per_domain", byDomainOf("e1"), { hour: 1, label: "x" })).toThrow(/label must merge by add, max or min/);
    expect(() => writes.tally("per_domain", { ...byDomainOf("e1"), columns: { domain: "colour" } }, { hour: 1 })).toThrow(
      /no column colour/,
    );
    expect(() => writes.tally("per_domain", { ...byDomainOf("e1"), columns: { domain: "domain", label: "domain" } }, { hour: 1 })).toThrow(
      /key columns only, not label/,
    );
    expect(() => writes.tally("per_domain", { ...byDomainOf("e1"), once: { column: "domain", value: "x" } }, { hour: 1 })).toThrow(
      /must be nullable/,
    );
    expect(() => writes.tally("nope", byDomainOf("e1"), { hour: 1 })).toThrow(/no table nope/);
  });
});
