import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openDatabase, type Database } from "./database.js";
import { createTestDatabase, testMode, type TestDatabase } from "./testDatabase.js";

const embedded = testMode() !== "server";
if (embedded) console.warn("lost server connections are a PostgreSQL server matter: their tests run only with TIDINGS_TEST_MODE=server");

/** What a database restart does to each open connection, one connection at a time. */
describe.skipIf(embedded)("connections the PostgreSQL server ends", () => {
  let test: TestDatabase;
  let database: Database;
  let admin: Database;
  beforeAll(async () => {
    test = await createTestDatabase({ mode: "server" });
    database = await openDatabase({ url: test.url, poolSize: 2 });
    admin = await openDatabase({ url: test.url, poolSize: 1 });
  });
  afterAll(async () => {
    await database?.close();
    await admin?.close();
    await test?.dispose();
  });

  const terminate = (pid: number) => sql`SELECT pg_terminate_backend(${pid}::int)`.execute(admin.db);

  it("fails the transaction whose connection ends between two statements, and the process and the pool go on", async () => {
    const uncaught: unknown[] = [];
    const collect = (error: unknown) => uncaught.push(error);
    process.on("uncaughtException", collect);
    const ended = database.db.transaction().execute(async (trx) => {
      const { rows } = await sql<{ pid: number }>`SELECT pg_backend_pid() AS pid`.execute(trx);
      await terminate(rows[0]!.pid);
      // The client learns of the end while no statement of its own is running: pg reports it as an
      // "error" event on the client, which must not reach the process as an uncaught exception.
      await new Promise((resolve) => setTimeout(resolve, 200));
      await sql`SELECT 1`.execute(trx);
    });
    await expect(ended).rejects.toThrow();
    process.off("uncaughtException", collect);
    expect(uncaught).toEqual([]);
    const { rows } = await sql<{ one: number }>`SELECT 1 AS one`.execute(database.db);
    expect(rows[0]!.one).toBe(1);
  });
});
