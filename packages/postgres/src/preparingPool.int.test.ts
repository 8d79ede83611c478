import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openDatabase, type Database } from "./database.js";
import { createTestDatabase, testMode, type TestDatabase } from "./testDatabase.js";

const embedded = testMode() !== "server";
if (embedded)
  console.warn("prepared statements are a PostgreSQL server feature: preparingPool.int runs only with TIDINGS_TEST_MODE=server");

describe.skipIf(embedded)("statements prepared on a PostgreSQL server", () => {
  let test: TestDatabase;
  let one: Database;
  beforeAll(async () => {
    test = await createTestDatabase();
    await test.database.exec(
      "CREATE TABLE things (id int PRIMARY KEY, name text); INSERT INTO things VALUES (1, 'one'), (2, 'two'); CREATE VIEW things_v AS SELECT * FROM things",
    );
    // One connection, so the session's prepared statements are the ones the queries made.
    one = await openDatabase({ url: test.url, poolSize: 1 });
  });
  afterAll(async () => {
    await one?.close();
    await test?.dispose();
  });

  const prepared = async (db: Database) =>
    (await sql<{ statement: string }>`SELECT statement FROM pg_prepared_statements`.execute(db.db)).rows.map((r) => r.statement);

  it("prepares a statement the third time it runs, and answers from it as from text", async () => {
    const byId = (id: number) => sql<{ name: string }>`SELECT name FROM things WHERE id = ${id}`.execute(one.db);
    expect((await byId(1)).rows).toEqual([{ name: "one" }]);
    expect((await byId(2)).rows).toEqual([{ name: "two" }]);
    expect(await prepared(one)).not.toContain("SELECT name FROM things WHERE id = $1");
    expect((await byId(1)).rows).toEqual([{ name: "one" }]);
    expect((await byId(2)).rows).toEqual([{ name: "two" }]);
    expect(await prepared(one)).toContain("SELECT name FROM things WHERE id = $1");
  });

  it("still plans each execution for its values", async () => {
    expect((await sql<{ plan_cache_mode: string }>`SHOW plan_cache_mode`.execute(one.db)).rows[0]!.plan_cache_mode).toBe(
      "force_custom_plan",
    );
  });

  it("runs a query again under a new name when a view it reads was recreated with other columns", async () => {
    const star = () => sql<Record<string, unknown>>`SELECT * FROM things_v WHERE id = ${1}`.execute(one.db);
    for (let i = 0; i < 3; i++) await star();
    await test.database.exec(
      "DROP VIEW things_v; ALTER TABLE things ADD COLUMN label text DEFAULT 'new'; CREATE VIEW things_v AS SELECT * FROM things",
    );
    expect((await star()).rows).toEqual([{ id: 1, name: "one", label: "new" }]);
  });

  it("lets the error stand inside a transaction, which is aborted, and prepares afresh for the next", async () => {
    const star = (db: Pick<Database, "db">["db"]) =>
      sql<Record<string, unknown>>`SELECT *, ${"x"}::text AS tag FROM things_v WHERE id = ${2}`.execute(db);
    for (let i = 0; i < 3; i++) await star(one.db);
    await test.database.exec(
      "DROP VIEW things_v; ALTER TABLE things ADD COLUMN rank int DEFAULT 7; CREATE VIEW things_v AS SELECT * FROM things",
    );
    await expect(one.db.transaction().execute((trx) => star(trx))).rejects.toThrow(/cached plan must not change result type/);
    const { rows } = await one.db.transaction().execute((trx) => star(trx));
    expect(rows).toEqual([{ id: 2, name: "two", label: "new", rank: 7, tag: "x" }]);
  });

  it("prepares nothing when turned off", async () => {
    const plain = await openDatabase({ url: test.url, poolSize: 1, preparedStatements: false });
    try {
      for (let i = 0; i < 4; i++) await sql`SELECT name FROM things WHERE id = ${i}`.execute(plain.db);
      expect(await prepared(plain)).toEqual([]);
    } finally {
      await plain.close();
    }
  });
});
