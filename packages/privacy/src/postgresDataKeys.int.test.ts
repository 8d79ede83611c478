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

  /** Three subjects' keys, made through `keys`; then their rows go behind its back, so only its cache still has them. */
  const cachedThenDeleted = async (keys: ReturnType<typeof createPostgresDataKeys>) => {
    const teamId = randomUUID();
    const made = await keys.subjects(["a", "b", "c"].map((subject) => ({ teamId, subjectHash: `${subject}-${randomUUID()}` })));
    const ids = [...made.values()].map((key) => key.id);
    await sql`DELETE FROM data_keys WHERE id = ANY(${ids}::uuid[])`.execute(test.database.db);
    return ids;
  };

  it("keeps at most maxCached keys: the one remembered first is gone from it, the later ones are still there", async () => {
    const keys = createPostgresDataKeys(test.database, secret, { cacheMs: 60_000, maxCached: 2 });
    const [first, second, third] = await cachedThenDeleted(keys);
    expect([...(await keys.open([first!])).keys()]).toEqual([]);
    expect([...(await keys.open([second!, third!])).keys()].sort()).toEqual([second, third].sort());
  });
});
