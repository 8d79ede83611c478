import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { sql } from "kysely";
import { testMode } from "@tidings/postgres";
import type { Position } from "@tidings/eventstore";
import { rebuildLock } from "./locks.js";
import { ProjectionUnavailableError } from "./projectionUnavailable.js";
import { projectionStatus } from "./status.js";
import { verifyProjection } from "./verify.js";
import { streamsProjection } from "../readmodels/streams.js";
import { storeOnTestDatabase } from "../testing/storeOnTestDatabase.js";

const env = storeOnTestDatabase();

/** `streams` new streams of `perStream` events each; resolves to the last append's position. */
async function appendStreams(streams: number, perStream: number): Promise<Position> {
  let last: Position = { commit: 0n, prepare: 0n };
  for (let s = 0; s < streams; s++) {
    const events = Array.from({ length: perStream }, (_, n) => ({ id: randomUUID(), type: `verify.Step${n % 3}`, data: { n } }));
    last = (await env.store.append(`verify-${randomUUID()}`, events, "any")).position;
  }
  return last;
}

const lastVerify = async () =>
  (await projectionStatus({ store: env.store, database: env.database, projections: [streamsProjection] }))[0]!.lastVerify;

describe(`projection verify (${testMode()})`, () => {
  it("finds a live projection equal to its replay, then names the rows changed and deleted by hand", async () => {
    const live = await env.start([streamsProjection]);
    try {
      expect(await live.waitFor(await appendStreams(40, 5), 60_000)).toBe(true);
      const equal = await verifyProjection({ store: env.store, database: env.database, projection: streamsProjection });
      expect(equal).toMatchObject({ projection: "streams", differences: 0, rows: [] });
      expect(equal.tables).toEqual({ streams: 0, stream_categories: 0, event_types: 0 });
      expect(equal.events).toBeGreaterThanOrEqual(200);
      expect(await lastVerify()).toMatchObject({ kind: "verify", outcome: "ok", differences: 0, events: equal.events });

      const { rows } = await sql<{ stream_id: string }>`SELECT stream_id FROM streams ORDER BY stream_id LIMIT 2`.execute(env.database.db);
      const [changed, deleted] = rows.map((r) => r.stream_id);
      await sql`UPDATE streams SET event_count = 99 WHERE stream_id = ${changed}`.execute(env.database.db);
      await sql`DELETE FROM streams WHERE stream_id = ${deleted}`.execute(env.database.db);

      const differs = await verifyProjection({ store: env.store, database: env.database, projection: streamsProjection });
      expect(differs.differences).toBe(2);
      expect(differs.tables).toEqual({ streams: 2, stream_categories: 0, event_types: 0 });
      const named = new Map(differs.rows.map((r) => [r.key.stream_id, r]));
      expect(named.get(changed)).toMatchObject({ table: "streams", columns: { event_count: { live: 99, replay: 5 } } });
      expect(Object.keys(named.get(changed)!.columns)).toEqual(["event_count"]);
      expect(named.get(deleted)).toMatchObject({ table: "streams", live: null, replay: { stream_id: deleted, event_count: 5 } });
      expect(await lastVerify()).toMatchObject({ outcome: "differs", differences: 2 });
      // The scratch tables are gone: nothing is left beside the live ones.
      const { rows: scratch } = await sql<{ n: string }>`
        SELECT count(*)::text AS n FROM pg_tables WHERE tablename LIKE '%\\_verify'`.execute(env.database.db);
      expect(scratch[0]!.n).toBe("0");
    } finally {
      await live.stop();
    }
  }, 180_000);

  it("refuses to run beside a rebuild of the same projection, and says so", async () => {
    const rebuilding = (await env.database.tryLock(rebuildLock("streams")))!;
    try {
      await expect(verifyProjection({ store: env.store, database: env.database, projection: streamsProjection })).rejects.toEqual(
        new ProjectionUnavailableError("projection streams is being rebuilt; verify it afterwards"),
      );
    } finally {
      await rebuilding.release();
    }
  });

  it("compares at one position while the live projector keeps applying new events", async () => {
    await sql`TRUNCATE streams_v1, stream_categories_v1, event_types_v1`.execute(env.database.db);
    await sql`UPDATE projection_checkpoints SET position = '0/0' WHERE name = 'streams'`.execute(env.database.db);
    const live = await env.start([streamsProjection], { batchSize: 50 });
    let appending = true;
    let last = await appendStreams(20, 5);
    const appender = (async () => {
      while (appending) {
        last = await appendStreams(1, 5);
        await new Promise((resolve) => setImmediate(resolve));
      }
    })();
    try {
      expect(await live.waitFor(last, 60_000)).toBe(true);
      const result = await verifyProjection({ store: env.store, database: env.database, projection: streamsProjection, batchSize: 100 });
      appending = false;
      await appender;
      expect(result.rows).toEqual([]);
      expect(result.differences).toBe(0);
      expect(await live.waitFor(last, 60_000)).toBe(true);
    } finally {
      appending = false;
      await appender;
      await live.stop();
    }
  }, 180_000);
});
