import { randomUUID } from "node:crypto";
import { sql } from "kysely";
import { beforeAll, describe, expect, it } from "vitest";
import { migrate, testMode } from "@tidings/postgres";
import { testDatabaseForFile } from "@tidings/postgres/testing";
import { createPostgresDataKeys, dataKeyMigrations } from "./postgresDataKeys.js";

const secret = "a-test-secret-of-enough-length-0123456789";

describe(`the key table's cache (${testMode() === "server" ? "PostgreSQL" : "PGlite"})`, () => {
  const test = testDatabaseForFile();
  beforeAll(() => migrate(test.database, "privacy", dataKeyMigrations));

  /** Five subjects' keys, made through `keys`; then their rows go behind its back, so only its cache still has them. */
  const cachedThenDeleted = async (keys: ReturnType<typeof createPostgresDataKeys>) => {
    const teamId = randomUUID();
    const made = await keys.subjects(["a", "b", "c", "d", "e"].map((subject) => ({ teamId, subjectHash: `${subject}-${randomUUID()}` })));
    const ids = [...made.values()].map((key) => key.id);
    await sql`DELETE FROM data_keys WHERE id = ANY(${ids}::uuid[])`.execute(test.database.db);
    return ids;
  };

  it("keeps its newest maxCached keys once it holds more than twice as many: the older ones are gone from it", async () => {
    const keys = createPostgresDataKeys(test.database, secret, { cacheMs: 60_000, maxCached: 2 });
    const ids = await cachedThenDeleted(keys);
    expect([...(await keys.open(ids.slice(0, 3))).keys()]).toEqual([]);
    expect([...(await keys.open(ids.slice(3))).keys()].sort()).toEqual(ids.slice(3).sort());
  });
});
