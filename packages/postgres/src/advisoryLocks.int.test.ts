import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openDatabase, type Database } from "./database.js";
import { testMode } from "./testDatabase.js";
import { testDatabaseForFile } from "./testing/testDatabaseForFile.js";

const test = testDatabaseForFile();

it("keeps a second holder in the same process out until the first releases", async () => {
  const first = await test.database.tryLock("same-process");
  expect(first).toBeDefined();
  expect(await test.database.tryLock("same-process")).toBeUndefined();
  await first!.release();
  const again = await test.database.tryLock("same-process");
  expect(again).toBeDefined();
  await again!.release();
});

const embedded = testMode() !== "server";
if (embedded)
  console.warn("advisory locks across sessions are a PostgreSQL server matter: their tests run only with TIDINGS_TEST_MODE=server");

describe.skipIf(embedded)("advisory locks on a PostgreSQL server", () => {
  let other: Database;
  beforeAll(async () => {
    // Another process, as far as the server is concerned: a pool and lock session of its own.
    other = await openDatabase({ url: test.url });
  });
  afterAll(async () => {
    await other?.close();
  });

  const advisoryLocks = async () =>
    Number(
      (
        await sql<{
          n: string;
        }>`SELECT count(*)::text AS n FROM pg_locks WHERE locktype = 'advisory' AND database = (SELECT oid FROM pg_database WHERE datname = current_database())`.execute(
          test.database.db,
        )
      ).rows[0]!.n,
    );
  const holders = async () =>
    Number(
      (
        await sql<{
          n: string;
        }>`SELECT count(DISTINCT pid)::text AS n FROM pg_locks WHERE locktype = 'advisory' AND database = (SELECT oid FROM pg_database WHERE datname = current_database())`.execute(
          test.database.db,
        )
      ).rows[0]!.n,
    );

  it("holds every lock of a process on one connection, and keeps other processes out", async () => {
    const held = await Promise.all(Array.from({ length: 20 }, (_, i) => test.database.tryLock(`many-${i}`)));
    expect(held.every((lock) => lock !== undefined)).toBe(true);
    expect(await advisoryLocks()).toBe(20);
    expect(await holders()).toBe(1);
    expect(await other.tryLock("many-3")).toBeUndefined();
    await held[3]!.release();
    const taken = await other.tryLock("many-3");
    expect(taken).toBeDefined();
    expect(await test.database.tryLock("many-3")).toBeUndefined();
    await Promise.all([...held.filter((_, i) => i !== 3).map((lock) => lock!.release()), taken!.release()]);
    expect(await advisoryLocks()).toBe(0);
  });

  it("takes a lock again on a new connection after its session is lost, and an old holding's release leaves the new one held", async () => {
    const lost = await test.database.tryLock("lost");
    expect(lost).toBeDefined();
    // With a timeout, pg_terminate_backend waits for the session to end: without one it only signals it, and
    // the lock was sometimes still held when the other process asked.
    await sql`SELECT pg_terminate_backend(pid, 10000) FROM pg_locks WHERE locktype = 'advisory' AND database = (SELECT oid FROM pg_database WHERE datname = current_database())`.execute(
      other.db,
    );
    // The server released the lock with the session: another process can take it at once.
    const elsewhere = await other.tryLock("lost");
    expect(elsewhere).toBeDefined();
    await elsewhere!.release();

    let renewed = await test.database.tryLock("lost");
    for (let tries = 0; !renewed && tries < 50; tries++) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      renewed = await test.database.tryLock("lost");
    }
    expect(renewed).toBeDefined();
    await lost!.release();
    // The lost connection's "end" can come after its "error" and after the renewal: it must clear nothing.
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(await other.tryLock("lost")).toBeUndefined();
    expect(await test.database.tryLock("lost")).toBeUndefined();
    await renewed!.release();
  });
});
