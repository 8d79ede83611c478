import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CompiledQuery, sql } from "kysely";
import { createTestDatabase, testMode, type TestDatabase } from "@tidings/postgres";
import { BatchWrites } from "./batchWrites.js";
import type { Projection, Row } from "./projection.js";
import { createTableSql } from "./readModelTables.js";
import { writeStatements } from "./writeStatements.js";

let test: TestDatabase;

beforeAll(async () => {
  test = await createTestDatabase();
});

afterAll(async () => {
  await test?.dispose();
});

const projection: Projection = {
  name: "folding",
  version: 1,
  tables: {
    items: {
      columns: {
        team: { type: "text" },
        id: { type: "bigint" },
        total: { type: "bigint", merge: "add", nullable: true },
        label: { type: "text", nullable: true },
        first_at: { type: "timestamptz", merge: "keep", nullable: true },
        high: { type: "integer", merge: "max", nullable: true },
        low: { type: "integer", merge: "min", nullable: true },
        tags: { type: "jsonb", nullable: true },
      },
      primaryKey: ["team", "id"],
    },
  },
  handlers: {},
};

type Write = (context: BatchWrites) => void;

/** A seeded generator, so a failure replays. */
function random(seed: number) {
  let state = seed;
  return () => {
    state = (state * 1103515245 + 12345) % 2 ** 31;
    return state / 2 ** 31;
  };
}

function aWrite(next: () => number): Write {
  const key = { team: next() < 0.5 ? "a" : "b", id: BigInt(Math.floor(next() * 4)) };
  const maybe = <T>(value: T) => (next() < 0.7 ? value : undefined);
  const values: Row = {};
  const pick = (column: string, value: unknown) => {
    const v = maybe(value);
    if (v !== undefined) values[column] = v;
  };
  pick("total", Math.floor(next() * 10));
  pick("label", next() < 0.2 ? null : `l${Math.floor(next() * 5)}`);
  pick("first_at", new Date(Date.UTC(2024, 0, 1 + Math.floor(next() * 20))));
  pick("high", Math.floor(next() * 100));
  pick("low", Math.floor(next() * 100));
  pick("tags", [Math.floor(next() * 3), { nested: "x" }]);
  const kind = next();
  if (kind < 0.55) return (c) => c.upsert("items", { ...key, ...values });
  if (kind < 0.85) return (c) => c.update("items", key, values);
  return (c) => c.delete("items", key);
}

async function apply(physical: string, writes: Write[]) {
  const buffer = new BatchWrites(projection);
  for (const write of writes) write(buffer);
  for (const table of buffer.drain()) {
    for (const statement of writeStatements(table, () => physical)) {
      await test.database.db.executeQuery(CompiledQuery.raw(statement.text, statement.params));
    }
  }
}

async function contents(physical: string) {
  const { rows } = await sql<{ row: string }>`SELECT t::text AS row FROM ${sql.table(physical)} t ORDER BY team, id`.execute(
    test.database.db,
  );
  return rows.map((r) => r.row);
}

describe(`folded batch writes (${testMode()})`, () => {
  it("leave the tables exactly as the same writes applied one at a time", async () => {
    for (let seed = 1; seed <= 25; seed++) {
      const next = random(seed);
      const writes = Array.from({ length: 40 }, () => aWrite(next));
      const folded = `folded_${seed}`;
      const oneByOne = `one_by_one_${seed}`;
      for (const physical of [folded, oneByOne]) await test.database.exec(createTableSql(physical, projection.tables.items!));
      // Some rows exist before the batch, so merges meet stored values too.
      const seedRows = writes.slice(0, 10);
      await apply(folded, seedRows);
      await apply(oneByOne, seedRows);

      const batch = writes.slice(10);
      await apply(folded, batch);
      for (const write of batch) await apply(oneByOne, [write]);
      expect(await contents(folded), `seed ${seed}`).toEqual(await contents(oneByOne));
    }
  });

  it("splits a batch larger than the bind-parameter limit into several statements", async () => {
    await test.database.exec(createTableSql("wide", projection.tables.items!));
    const writes: Write[] = Array.from(
      { length: 12_000 },
      (_, i) => (c) => c.upsert("items", { team: "a", id: BigInt(i), total: 1, high: i }),
    );
    await apply("wide", writes);
    const { rows } = await sql<{ n: string; total: string }>`SELECT count(*)::text AS n, sum(total)::text AS total FROM wide`.execute(
      test.database.db,
    );
    expect(rows[0]).toEqual({ n: "12000", total: "12000" });
  });
});
