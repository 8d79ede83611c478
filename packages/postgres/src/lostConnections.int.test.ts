import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isConnectionLoss } from "./connectionLoss.js";
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
    const error = await ended.then(
      () => undefined,
      (e: unknown) => e,
    );
    process.off("uncaughtException", collect);
    expect(uncaught).toEqual([]);
    expect(isConnectionLoss(error), String(error)).toBe(true);
    const { rows } = await sql<{ one: number }>`SELECT 1 AS one`.execute(database.db);
    expect(rows[0]!.one).toBe(1);
  });

  it("calls a statement cut off by the server connection loss, and a statement's own failure not", async () => {
    const running = sql`SELECT pg_sleep(5)`.execute(database.db).then(
      () => undefined,
      (e: unknown) => e,
    );
    let pid: number | undefined;
    while (pid === undefined) {
      const { rows } = await sql<{
        pid: number;
      }>`SELECT pid FROM pg_stat_activity WHERE query LIKE 'SELECT pg_sleep(5)%' AND datname = current_database()`.execute(admin.db);
      pid = rows[0]?.pid;
    }
    await terminate(pid);
    const cutOff = await running;
    expect(isConnectionLoss(cutOff), String(cutOff)).toBe(true);
    const refused = await openDatabase({ url: "postgres://postgres@127.0.0.1:1/postgres", poolSize: 1 });
    const unreachable = await sql`SELECT 1`.execute(refused.db).then(
      () => undefined,
      (e: unknown) => e,
    );
    await refused.close();
    expect(isConnectionLoss(unreachable), String(unreachable)).toBe(true);
    const wrong = await sql`SELECT no_such_column FROM pg_class`.execute(admin.db).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(isConnectionLoss(wrong), String(wrong)).toBe(false);
  });

  it("listens again on a new connection after the server ends the one that listened", async () => {
    const received: string[] = [];
    const unlisten = await database.listen("lost_listen", (payload) => received.push(payload));
    try {
      const { rows } = await sql<{
        pid: number;
      }>`SELECT pid FROM pg_stat_activity WHERE query = 'LISTEN "lost_listen"' AND datname = current_database()`.execute(admin.db);
      expect(rows).toHaveLength(1);
      await terminate(rows[0]!.pid);
      // Notifications sent before it listens again are lost (its users poll for that): keep sending.
      const deadline = Date.now() + 10_000;
      for (let n = 0; received.length === 0 && Date.now() < deadline; n++) {
        await sql`SELECT pg_notify('lost_listen', ${String(n)})`.execute(admin.db);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      expect(received.length).toBeGreaterThan(0);
    } finally {
      await unlisten();
    }
    // Nothing listens again after unlisten: the session ends (its backend leaves pg_stat_activity a moment later).
    const listeners = async () =>
      (
        await sql<{
          n: string;
        }>`SELECT count(*)::text AS n FROM pg_stat_activity WHERE query = 'LISTEN "lost_listen"' AND datname = current_database()`.execute(
          admin.db,
        )
      ).rows[0]!.n;
    const deadline = Date.now() + 5_000;
    while ((await listeners()) !== "0" && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
    expect(await listeners()).toBe("0");
  });
});
