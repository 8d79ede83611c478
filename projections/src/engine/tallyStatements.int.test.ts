import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CompiledQuery, sql } from "kysely";
import { createTestDatabase, testMode, type TestDatabase } from "@tidings/postgres";
import { BatchWrites } from "./batchWrites.js";
import type { Projection, TallyThrough } from "./projection.js";
import { createTableSql } from "./readModelTables.js";
import { writeStatements } from "./writeStatements.js";

let test: TestDatabase;

const projection: Projection = {
  name: "tallied",
  version: 1,
  tables: {
    emails: {
      columns: {
        id: { type: "uuid" },
        domain: { type: "text" },
        opened_at: { type: "timestamptz", nullable: true },
      },
      primaryKey: ["id"],
    },
    per_domain: {
      columns: {
        domain: { type: "text" },
        hour: { type: "integer" },
        opens: { type: "bigint", merge: "add" },
        unique_opens: { type: "bigint", merge: "add" },
        latest: { type: "timestamptz", merge: "max", nullable: true },
      },
      primaryKey: ["domain", "hour"],
    },
  },
  handlers: {},
};

beforeAll(async () => {
  test = await createTestDatabase();
  for (const [table, definition] of Object.entries(projection.tables)) await test.database.exec(createTableSql(table, definition));
});

afterAll(async () => {
  await test?.dispose();
});

const email = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, "0")}`;
const byDomain = (n: number): TallyThrough => ({ table: "emails", key: { id: email(n) }, columns: { domain: "domain" } });

/** An open of email `n` at `hour`: every open counts, the first of the email also as a unique one. */
function open(writes: BatchWrites, n: number, hour: number) {
  const at = new Date(Date.UTC(2026, 0, 1, hour)).toISOString();
  writes.tally("per_domain", byDomain(n), { hour, opens: 1, latest: at });
  writes.tally("per_domain", { ...byDomain(n), once: { column: "opened_at", value: at } }, { hour, unique_opens: 1 });
}

async function apply(write: (writes: BatchWrites) => void) {
  const writes = new BatchWrites(projection);
  write(writes);
  for (const table of writes.drain())
    for (const statement of writeStatements(table, (name) => name))
      await test.database.db.executeQuery(CompiledQuery.raw(statement.text, statement.params));
}

async function perDomain() {
  const { rows } = await sql<{
    row: string;
  }>`SELECT concat_ws(' ', domain, hour, opens, unique_opens) AS row FROM per_domain ORDER BY 1`.execute(test.database.db);
  return rows.map((r) => r.row);
}

describe(`tallies through another table's row (${testMode()})`, () => {
  it("count under the row read, once where asked, across batches, and not at all without a row", async () => {
    await apply((writes) => {
      writes.upsert("emails", { id: email(1), domain: "a.test" });
      writes.upsert("emails", { id: email(2), domain: "a.test" });
      writes.upsert("emails", { id: email(3), domain: "b.test" });
      open(writes, 1, 9);
      open(writes, 1, 9);
      open(writes, 2, 9);
      open(writes, 4, 9);
    });
    expect(await perDomain()).toEqual(["a.test 9 3 2"]);

    await apply((writes) => {
      open(writes, 1, 10);
      open(writes, 3, 10);
      open(writes, 3, 11);
    });
    expect(await perDomain()).toEqual(["a.test 10 1 0", "a.test 9 3 2", "b.test 10 1 1", "b.test 11 1 0"]);
    const { rows } = await sql<{ opened_at: Date }>`SELECT opened_at FROM emails WHERE id = ${email(1)}`.execute(test.database.db);
    expect(rows[0]!.opened_at.toISOString()).toBe("2026-01-01T09:00:00.000Z");
  });
});
