import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { sql } from "kysely";
import { testMode } from "@tidings/postgres";
import type { Position } from "@tidings/eventstore";
import { readModelChecksum } from "./checksum.js";
import { readCheckpoints } from "./checkpoints.js";
import { rebuildProjection } from "./rebuild.js";
import type { RebuildProgress } from "./shadowBuild.js";
import { projectionStatus } from "./status.js";
import { streamsProjection } from "../readmodels/streams.js";
import { storeOnTestDatabase } from "../testing/storeOnTestDatabase.js";

const env = storeOnTestDatabase();

const categories = ["email", "contact", "broadcast", "domain"];
const types = ["Queued", "Sent", "Delivered", "Opened", "Clicked"];

/** `streams` streams of `perStream` events each, appended a stream at a time, a few appends in flight. */
async function appendStreams(streams: number, perStream: number): Promise<Position> {
  let last: Position = { commit: 0n, prepare: 0n };
  const inFlight = testMode() === "server" ? 4 : 1;
  for (let s = 0; s < streams; s += inFlight) {
    const results = await Promise.all(
      Array.from({ length: Math.min(inFlight, streams - s) }, (_, i) => {
        const category = categories[(s + i) % categories.length]!;
        const events = Array.from({ length: perStream }, (_, n) => ({
          id: randomUUID(),
          type: `${category}.${types[n % types.length]!}`,
          data: { n, note: "x".repeat(40) },
        }));
        return env.store.append(`${category}-${randomUUID()}`, events, "any");
      }),
    );
    for (const r of results)
      if (r.position.commit > last.commit || (r.position.commit === last.commit && r.position.prepare > last.prepare)) last = r.position;
  }
  return last;
}

/** 100k events on PGlite take most of a minute when the machine is busy with other test files, over 220 s beside a CPU hog too. */
const rebuildTimeoutMs = 420_000;

describe(`projection rebuild (${testMode()})`, () => {
  it(
    "rebuilds a 100k-event store with progress and ends with the live projection's checksum",
    async () => {
      const live = await env.start([streamsProjection]);
      let head: Position;
      try {
        head = await appendStreams(1_000, 100);
        expect(await live.waitFor(head, 60_000)).toBe(true);
      } finally {
        await live.stop();
      }
      const liveChecksum = await readModelChecksum(env.database, streamsProjection);

      const { rows } = await sql<{ streams: string; events: string }>`
      SELECT sum(stream_count)::text AS streams, sum(event_count)::text AS events FROM stream_categories`.execute(env.database.db);
      expect(rows[0]).toEqual({ streams: "1000", events: "100000" });

      const progress: RebuildProgress[] = [];
      const result = await rebuildProjection({
        store: env.store,
        database: env.database,
        projection: streamsProjection,
        batchSize: 5_000,
        onProgress(p) {
          progress.push(p);
          console.log(
            `rebuild ${p.projection}: ${p.events} events, ${Math.round(p.eventsPerSecond)} events/s, ${(p.fraction * 100).toFixed(1)}%, ETA ${p.etaSeconds?.toFixed(1) ?? "?"} s`,
          );
        },
      });
      console.log(`rebuild done: ${result.events} events in ${result.seconds.toFixed(2)} s, checksum ${result.checksum.checksum}`);

      expect(result.events).toBe(100_000);
      expect(progress.length).toBeGreaterThanOrEqual(20);
      expect(progress.map((p) => p.events)).toEqual([...progress.map((p) => p.events)].sort((a, b) => a - b));
      expect(progress.at(-1)!.fraction).toBe(1);
      expect(progress.some((p) => p.fraction > 0 && p.fraction < 1 && p.etaSeconds !== undefined)).toBe(true);
      expect(result.checksum).toEqual(liveChecksum);
      expect(await readModelChecksum(env.database, streamsProjection)).toEqual(liveChecksum);
      expect((await readCheckpoints(env.database.db, ["streams"])).map((c) => c.state)).toEqual(["live"]);

      const [status] = await projectionStatus({ store: env.store, database: env.database, projections: [streamsProjection] });
      expect(status).toMatchObject({ name: "streams", liveVersion: 1, state: "stopped", lagEvents: 0, lagSeconds: 0, rebuild: undefined });
    },
    rebuildTimeoutMs,
  );

  it(
    "rebuilds while the runner keeps the projection live and events keep coming, without losing or doubling any",
    async () => {
      const live = await env.start([streamsProjection], { batchSize: 200 });
      try {
        let last = await appendStreams(100, 30);
        let appending = true;
        const appender = (async () => {
          while (appending) {
            last = await appendStreams(2, 20);
            // PGlite answers within microtasks; let the runner and the rebuild have their turns.
            await new Promise((resolve) => setImmediate(resolve));
          }
        })();
        const result = await rebuildProjection({
          store: env.store,
          database: env.database,
          projection: streamsProjection,
          batchSize: 2_000,
        });
        appending = false;
        await appender;
        expect(result.events).toBeGreaterThanOrEqual(3_000);
        // The position of the last append, not headPosition(): in server mode the head only covers what is
        // below the cluster-wide xmin, which other test files' open transactions can hold back.
        expect(await live.waitFor(last, 60_000)).toBe(true);

        const { rows } = await sql<{ events: string }>`SELECT count(*)::text AS events FROM eventstore.events`.execute(env.database.db);
        const { rows: projected } = await sql<{ events: string; streams: string }>`
        SELECT sum(event_count)::text AS events, count(*)::text AS streams FROM streams`.execute(env.database.db);
        expect(projected[0]!.events).toBe(rows[0]!.events);
        const { rows: streams } = await sql<{ n: string }>`SELECT count(*)::text AS n FROM eventstore.streams`.execute(env.database.db);
        expect(projected[0]!.streams).toBe(streams[0]!.n);
      } finally {
        await live.stop();
      }
      const afterLive = await readModelChecksum(env.database, streamsProjection);
      const again = await rebuildProjection({ store: env.store, database: env.database, projection: streamsProjection });
      expect(again.checksum).toEqual(afterLive);
    },
    rebuildTimeoutMs,
  );
});
