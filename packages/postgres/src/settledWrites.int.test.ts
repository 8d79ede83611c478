import { sql } from "kysely";
import { expect, it } from "vitest";
import { settledWrites } from "./settledWrites.js";
import { testMode } from "./testDatabase.js";
import { testDatabaseForFile } from "./testing/testDatabaseForFile.js";

const test = testDatabaseForFile();

it("resolves at once when no write is open", async () => {
  await expect(settledWrites(test.database, 2_000)).resolves.toBeUndefined();
});

// PGlite is one session: a second transaction cannot be open beside the one settledWrites takes.
if (testMode() !== "server") console.warn("settledWrites waiting on another session's open write runs only with TIDINGS_TEST_MODE=server");

it.skipIf(testMode() !== "server")("waits while an older write transaction is open elsewhere, and resolves once it ends", async () => {
  let release!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  let opened!: () => void;
  const open = new Promise<void>((resolve) => (opened = resolve));
  const writer = test.database.db.transaction().execute(async (trx) => {
    await sql`SELECT pg_current_xact_id()`.execute(trx);
    opened();
    await held;
  });
  await open;
  await expect(settledWrites(test.database, 300)).rejects.toThrow(/did not pass transaction \d+ within 300 ms/);
  const settled = settledWrites(test.database, 5_000);
  release();
  await writer;
  await expect(settled).resolves.toBeUndefined();
});
