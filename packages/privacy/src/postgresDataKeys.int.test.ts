import { randomUUID } from "node:crypto";
import { sql } from "kysely";
import { beforeAll, describe, expect, it } from "vitest";
import { migrate, testMode } from "@tidings/postgres";
import { testDatabaseForFile } from "@tidings/postgres/testing";
import { subjectKeyName } from "./dataKeys.js";
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

  it("gives a subject the key another process made for it, and a new key only to a subject that has none", async () => {
    const teamId = randomUUID();
    const [known, unknown] = [`known-${randomUUID()}`, `unknown-${randomUUID()}`];
    const first = await createPostgresDataKeys(test.database, secret).subjects([{ teamId, subjectHash: known }]);
    const second = await createPostgresDataKeys(test.database, secret).subjects([
      { teamId, subjectHash: known },
      { teamId, subjectHash: unknown },
    ]);
    const made = first.get(subjectKeyName(teamId, known))!;
    expect(second.get(subjectKeyName(teamId, known))).toEqual(made);
    expect(second.get(subjectKeyName(teamId, unknown))!.id).not.toBe(made.id);
    const { rows } = await sql<{ count: string }>`SELECT count(*)::text AS count FROM data_keys WHERE team_id = ${teamId}`.execute(
      test.database.db,
    );
    expect(rows[0]!.count).toBe("2");
  });

  it("gives a subject one key when two processes ask for it first at the same time", async () => {
    const teamId = randomUUID();
    const subjects = Array.from({ length: 50 }, (_, i) => ({ teamId, subjectHash: `s${i}-${randomUUID()}` }));
    const [a, b] = await Promise.all([
      createPostgresDataKeys(test.database, secret).subjects(subjects),
      createPostgresDataKeys(test.database, secret).subjects([...subjects].reverse()),
    ]);
    for (const [name, key] of a) expect(b.get(name)).toEqual(key);
    expect(a.size).toBe(50);
  });

  it("looks up more keys than one query asks for in several, and finds each of them", async () => {
    const teamId = randomUUID();
    const made = await createPostgresDataKeys(test.database, secret).subjects(
      ["a", "b", "c", "d", "e"].map((subject) => ({ teamId, subjectHash: `${subject}-${randomUUID()}` })),
    );
    const keys = createPostgresDataKeys(test.database, secret, { idsPerLookup: 2 });
    const opened = await keys.open([...made.values()].map((key) => key.id));
    expect([...made.values()].every((key) => opened.get(key.id)?.equals(key.key))).toBe(true);
    expect(opened.size).toBe(5);
  });
});
