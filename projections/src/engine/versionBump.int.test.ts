import { describe, expect, it } from "vitest";
import { sql } from "kysely";
import { testMode, type Database } from "@tidings/postgres";
import { readCheckpoints } from "./checkpoints.js";
import { storeOnTestDatabase } from "../testing/storeOnTestDatabase.js";
import { aCountingProjection, aName, until } from "../testing/testBuilders.js";

const env = storeOnTestDatabase();

async function tablesLike(db: Database, pattern: string): Promise<string[]> {
  const { rows } = await sql<{ name: string }>`
    SELECT table_name AS name FROM information_schema.tables
     WHERE table_schema = 'public' AND table_type = 'BASE TABLE' AND table_name LIKE ${pattern} ORDER BY 1`.execute(db.db);
  return rows.map((r) => r.name);
}

async function totalOf(db: Database, view: string): Promise<number> {
  const { rows } = await sql<{ total: string }>`SELECT coalesce(sum(events), 0)::text AS total FROM ${sql.table(view)}`.execute(db.db);
  return Number(rows[0]!.total);
}

describe(`version bump (${testMode()})`, () => {
  it("rebuilds into new tables while the old ones keep serving, then switches readers in one step", async () => {
    const name = aName();
    const view = `${name}_counts`;
    const v1 = await env.start([aCountingProjection(name)]);
    const head = await env.appendProjected(v1, name, 20, 10);
    await v1.stop();
    expect(await totalOf(env.database, view)).toBe(200);

    // Version 2 writes ten times the weight; its handler refuses until the gate opens, which holds the
    // rebuild midway so the test can look at both versions side by side.
    let gateOpen = false;
    const v2Projection = aCountingProjection(name, {
      version: 2,
      weight: 10,
      beforeEach: () => {
        if (!gateOpen) throw new Error("gate closed");
      },
    });
    const v2 = await env.start([v2Projection], { retryMs: 50, rebuildBatchSize: 50 });
    const reader = testMode() === "server" ? await env.test.reopen() : env.database;
    try {
      await until(() => v2.status()[0]!.lastError === "gate closed", 15_000, "the rebuild to start");
      expect(await tablesLike(env.database, `${name}_counts_v%`)).toEqual([`${name}_counts_v1`, `${name}_counts_v2_next`]);
      expect((await readCheckpoints(env.database.db, [name])).map((c) => [c.state, c.version])).toEqual([
        ["live", 1],
        ["rebuilding", 2],
      ]);
      expect(await totalOf(reader, view)).toBe(200);
      expect(await v2.waitFor(head, 200)).toBe(true);

      // Readers poll the view throughout the switch: every answer is one version or the other, whole.
      const seen = new Set<number>();
      let reading = true;
      const readerLoop = (async () => {
        while (reading) {
          seen.add(await totalOf(reader, view));
          // PGlite answers within microtasks; let the runner's timers in.
          await new Promise((resolve) => setImmediate(resolve));
        }
      })();
      gateOpen = true;
      await until(
        async () => (await readCheckpoints(env.database.db, [name])).every((c) => c.state === "live" && c.version === 2),
        15_000,
        "the switch",
      );
      reading = false;
      await readerLoop;
      expect([...seen].every((total) => total === 200 || total === 2000)).toBe(true);
      expect(await totalOf(reader, view)).toBe(2000);
      expect(await tablesLike(env.database, `${name}_counts_v%`)).toEqual([`${name}_counts_v2`]);

      await env.appendProjected(v2, name, 1, 3);
      expect(await totalOf(reader, view)).toBe(2030);
      expect(v2.status()[0]!.state).toBe("live");
    } finally {
      await v2.stop();
    }
  });

  it("leaves a newer live version alone when an older build starts", async () => {
    const name = aName();
    const newer = await env.start([aCountingProjection(name, { version: 3 })]);
    await env.appendProjected(newer, name, 1, 1);
    await newer.stop();

    const older = await env.start([aCountingProjection(name, { version: 2 })]);
    try {
      await until(() => older.status()[0]!.state === "outdated", 15_000, "the older build to step aside");
      expect(await tablesLike(env.database, `${name}_counts_v%`)).toEqual([`${name}_counts_v3`]);
    } finally {
      await older.stop();
    }
  });
});
