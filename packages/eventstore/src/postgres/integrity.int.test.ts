import { randomUUID } from "node:crypto";
import { sql } from "kysely";
import { describe, expect, it } from "vitest";
import { createTestDatabase, migrate } from "@tidings/postgres";
import { testDatabaseForFile } from "@tidings/postgres/testing";
import { canonicalJson } from "../integrity/canonicalJson.js";
import { contentHash } from "../integrity/hashes.js";
import { sealStore } from "../integrity/seal.js";
import { startPeriodicSealing } from "../integrity/periodicSeal.js";
import { committedHead } from "../integrity/storeReading.js";
import { sealKeys } from "../integrity/signing.js";
import { verifyStore } from "../integrity/verifyStore.js";
import { integrityContract, type Tampering } from "../testing/contractIntegrity.js";
import { START, type EventStore, type Position } from "../port.js";
import { eventStoreMigrations } from "./migrations.js";
import { createPostgresEventStore } from "./postgresEventStore.js";
import type { Kysely } from "kysely";

function sqlTampering(db: Kysely<unknown>): Tampering {
  const at = (streamId: string, revision: bigint) => sql`stream_id = ${streamId} AND revision = ${revision.toString()}::bigint`;
  return {
    changeData: async (s, r) =>
      void (await sql`UPDATE eventstore.events SET data = data || '{"tampered": true}' WHERE ${at(s, r)}`.execute(db)),
    changeMetadata: async (s, r) =>
      void (await sql`UPDATE eventstore.events SET metadata = metadata || '{"actor": "mallory"}' WHERE ${at(s, r)}`.execute(db)),
    deleteEvent: async (s, r) => void (await sql`DELETE FROM eventstore.events WHERE ${at(s, r)}`.execute(db)),
    async deleteStream(s) {
      await sql`DELETE FROM eventstore.events WHERE stream_id = ${s}`.execute(db);
      await sql`DELETE FROM eventstore.streams WHERE stream_id = ${s}`.execute(db);
    },
    async cutTail(count) {
      await sql`DELETE FROM eventstore.events e USING (SELECT tx_id, seq FROM eventstore.events ORDER BY tx_id DESC, seq DESC LIMIT ${count}) t
                 WHERE e.tx_id = t.tx_id AND e.seq = t.seq`.execute(db);
    },
    async swapRevisions(s, a, b) {
      await sql`UPDATE eventstore.events SET revision = -1 WHERE ${at(s, a)}`.execute(db);
      await sql`UPDATE eventstore.events SET revision = ${a.toString()}::bigint WHERE ${at(s, b)}`.execute(db);
      await sql`UPDATE eventstore.events SET revision = ${b.toString()}::bigint WHERE ${at(s, -1n)}`.execute(db);
    },
    async swapPositions(a: Position, b: Position) {
      const pos = (p: Position) => sql`tx_id = ${p.commit.toString()}::xid8 AND seq = ${p.prepare.toString()}::bigint`;
      await sql`UPDATE eventstore.events SET seq = -1 WHERE ${pos(a)}`.execute(db);
      await sql`UPDATE eventstore.events SET tx_id = ${a.commit.toString()}::xid8, seq = ${a.prepare.toString()}::bigint WHERE ${pos(b)}`.execute(
        db,
      );
      await sql`UPDATE eventstore.events SET tx_id = ${b.commit.toString()}::xid8, seq = ${b.prepare.toString()}::bigint
                 WHERE tx_id = ${a.commit.toString()}::xid8 AND seq = -1`.execute(db);
    },
  };
}

integrityContract("PostgreSQL", async () => {
  const test = await createTestDatabase();
  await migrate(test.database, "eventstore", eventStoreMigrations);
  const store = createPostgresEventStore(test.database);
  const others: EventStore[] = [];
  return {
    store,
    after: START,
    tampering: sqlTampering(test.database.db),
    another() {
      const other = createPostgresEventStore(test.database);
      others.push(other);
      return other;
    },
    async dispose() {
      await Promise.all([store, ...others].map((s) => s.close()));
      await test.dispose();
    },
  };
});

describe("the integrity migration of a store written before hashes", () => {
  it("chains the events it finds in revision order per stream, and appends and seals go on from there", async () => {
    const test = await createTestDatabase();
    try {
      await migrate(test.database, "eventstore", eventStoreMigrations.slice(0, 4));
      const [a, b] = [`old-${randomUUID()}`, `old-${randomUUID()}`];
      const written = (n: number) => Array.from({ length: n }, (_, i) => ({ id: randomUUID(), type: "Old", data: { i, at: 1.5e-7 } }));
      const payload = [
        { stream: a, expected: "no_stream", events: written(3) },
        { stream: b, expected: "no_stream", events: written(2) },
      ];
      await sql`SELECT * FROM eventstore.append_set(${JSON.stringify(payload)}::jsonb)`.execute(test.database.db);
      await sql`SELECT * FROM eventstore.append_set(${JSON.stringify([{ stream: a, expected: "2", events: written(1) }])}::jsonb)`.execute(
        test.database.db,
      );

      await migrate(test.database, "eventstore", eventStoreMigrations);
      const store = createPostgresEventStore(test.database);
      try {
        const before = await verifyStore(store);
        expect(before).toMatchObject({ ok: true, events: 6, unsealed: 6 });
        await store.append(a, [{ id: randomUUID(), type: "New", data: {} }], 3n);
        expect((await sealStore(store, { keys: sealKeys("migrated") })).sealed).toBe(true);
        const after = await verifyStore(store, { publicKey: sealKeys("migrated").publicKey });
        expect(after).toMatchObject({ ok: true, events: 8, seals: 1 });
        const [head] = await store.readStream(a, { direction: "backwards", maxCount: 1 });
        const { rows } = await sql<{ hash: string }>`SELECT hash FROM eventstore.streams WHERE stream_id = ${a}`.execute(test.database.db);
        expect(rows[0]!.hash).toBe(head!.hash);
      } finally {
        await store.close();
      }
    } finally {
      await test.dispose();
    }
  });
});

describe("periodic sealing", () => {
  it("follows a seal that stopped at its most events with the next at once, not an interval later, until the head is covered", async () => {
    const test = await createTestDatabase();
    const store = createPostgresEventStore(test.database);
    try {
      await migrate(test.database, "eventstore", eventStoreMigrations);
      for (let i = 0; i < 5; i++) await store.append(`long-${randomUUID()}`, [{ id: randomUUID(), type: "E", data: { i } }], "no_stream");
      // On a server shared with other work, a transaction open elsewhere holds the readable head back.
      const { until, committed } = await committedHead(store);
      expect(until).toEqual(committed);
      const covered: number[] = [];
      let caughtUp!: () => void;
      const done = new Promise<void>((resolve) => (caughtUp = resolve));
      const keys = sealKeys("periodic");
      const sealing = startPeriodicSealing(
        store,
        keys,
        3_600_000,
        {
          sealed: (outcome) => {
            if (outcome.sealed) covered.push(outcome.seal.events);
            if (!outcome.sealed || !outcome.more) caughtUp();
          },
          failed: caughtUp,
        },
        { maxEvents: 2 },
      );
      await done;
      await sealing.stop();
      // Five events two at a time, and the seals in the stretches after the first (each seal is an event too).
      expect(covered.length).toBeGreaterThanOrEqual(3);
      expect(covered.slice(0, -1)).toEqual(covered.slice(0, -1).map(() => 2));
      expect(covered.reduce((a, b) => a + b, 0)).toBeGreaterThanOrEqual(5);
      expect(await verifyStore(store, { publicKey: keys.publicKey })).toMatchObject({ ok: true, seals: covered.length });
    } finally {
      await store.close();
      await test.dispose();
    }
  });
});

describe("the SQL twins of the JavaScript hashing", () => {
  const test = testDatabaseForFile();

  it("write the same canonical JSON and content hash for values read back from jsonb", async () => {
    await migrate(test.database, "eventstore", eventStoreMigrations);
    const values: unknown[] = [
      { b: 1, a: [1, 2.5, -0, 1e21, 1.5e-7, 2 ** 70], é: 'ü\u0001\n\t"\\', "𝄞": null, "\uffff": true, "": {} },
      ["x", { z: { y: [] } }, false, 0.1],
      "a\u2028b",
      42,
    ];
    for (const value of values) {
      const { rows } = await sql<{ canonical: string; hash: string; back: unknown }>`
        SELECT eventstore.canonical_json(${JSON.stringify(value)}::jsonb) AS canonical,
               eventstore.content_hash('0b7f2c1e-5d7a-4f1e-9a8b-3c2d1e0f9a8b'::uuid, 'T', ${JSON.stringify(value)}::jsonb, '{"k": 1}'::jsonb) AS hash,
               ${JSON.stringify(value)}::jsonb AS back`.execute(test.database.db);
      const row = rows[0]!;
      expect(row.canonical).toBe(canonicalJson(value));
      expect(canonicalJson(row.back)).toBe(canonicalJson(value));
      expect(row.hash).toBe(contentHash({ id: "0B7F2C1E-5D7A-4F1E-9A8B-3C2D1E0F9A8B", type: "T", data: value, metadata: { k: 1 } }));
    }
  });
});
