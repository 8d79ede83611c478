import { randomUUID } from "node:crypto";
import { createPostgresEventStore, eventStoreMigrations, formatPosition, START, type EventStore } from "@tidings/eventstore";
import { createTestDatabase, migrate, settledWrites, testMode, type TestDatabase } from "@tidings/postgres";
import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startForwarder } from "./forwarder.js";
import { forwarderMigrations, moveForwarderCheckpoint } from "./forwarderCheckpoint.js";
import type { Bus } from "./port.js";
import { recordingConsumer, sleep, waitUntil } from "./recordingConsumer.js";
import { openTestBus } from "./testing/testBus.js";

describe(`forwarder (${testMode() === "server" ? "PostgreSQL to NATS" : "PGlite to the in-process bus"})`, () => {
  let test: TestDatabase;
  let store: EventStore;
  let bus: Bus;
  let n = 0;
  /** A stream category of this test's own, so its consumers see only its events. */
  const category = () => `cat${++n}${Math.random().toString(36).slice(2, 6)}`;
  /**
   * Returns once the events show in $all: the tests reason about which events a forwarder's catch-up
   * reads, and a write in another database of the cluster can hide them for a moment (docs/architecture.md §4).
   */
  const append = async (streamId: string, ...types: string[]) => {
    const appended = await store.append(
      streamId,
      types.map((type, i) => ({ id: randomUUID(), type, data: { i }, metadata: { teamId: "t1" } })),
      "any",
    );
    await settledWrites(test.database);
    return appended;
  };
  const checkpoint = async (name: string) => {
    const { rows } = await sql<{ position: string }>`SELECT position FROM forwarder_checkpoints WHERE name = ${name}`.execute(
      test.database.db,
    );
    return rows[0]?.position;
  };

  beforeAll(async () => {
    test = await createTestDatabase();
    await migrate(test.database, "eventstore", eventStoreMigrations);
    store = createPostgresEventStore(test.database);
    bus = await openTestBus(test.database);
  });
  afterAll(async () => {
    await bus?.close();
    await store?.close();
    await test?.dispose();
  });

  it("publishes each event to events.<category>.<Type> with the recorded event as body, and checkpoints it", async () => {
    const cat = category();
    const streamId = `${cat}-${randomUUID()}`;
    const appended = await append(streamId, "ThingQueued", "ThingSent");
    const [first, second] = await store.readStream(streamId);
    const forwarder = await startForwarder({ store, bus, database: test.database, name: `f-${cat}` });
    const c = await recordingConsumer(bus, { durable: `${cat}-c`, filterSubject: `events.${cat}.*`, maxDeliver: 3 });
    await c.waitFor(2);
    await waitUntil(async () => (await checkpoint(`f-${cat}`)) === formatPosition(appended.position));
    await Promise.all([c.stop(), forwarder.stop()]);

    expect(c.received.map((r) => [r.subject, r.msgId])).toEqual([
      [`events.${cat}.ThingQueued`, first!.id],
      [`events.${cat}.ThingSent`, second!.id],
    ]);
    expect(c.received[1]!.data).toEqual({
      id: second!.id,
      type: "ThingSent",
      streamId,
      revision: "1",
      position: formatPosition(second!.position),
      data: { i: 1 },
      metadata: expect.objectContaining({ teamId: "t1" }),
      createdAt: second!.createdAt.toISOString(),
    });
  });

  it("publishes no duplicate when it dies after publishing part of a batch and before its checkpoint", async () => {
    const cat = category();
    const name = `f-${cat}`;
    const streamId = `${cat}-${randomUUID()}`;
    await append(streamId, ...Array.from({ length: 20 }, (_, i) => `Step${i}`));
    const appended = await store.readStream(streamId);
    // Earlier tests' events pass; of this test's 20 events, the first 8 get out before the "crash".
    let publishes = 0;
    const dyingBus: Bus = {
      ...bus,
      publish: (subject, data, options) =>
        subject.startsWith(`events.${cat}.`) && ++publishes > 8
          ? Promise.reject(new Error("process killed"))
          : bus.publish(subject, data, options),
    };
    const c = await recordingConsumer(bus, { durable: `${cat}-c`, filterSubject: `events.${cat}.*`, maxDeliver: 3 });

    const dying = await startForwarder({ store, bus: dyingBus, database: test.database, name, retryDelayMs: 60_000 });
    await c.waitFor(8);
    await dying.stop();
    expect(await checkpoint(name)).toBeUndefined();

    const restarted = await startForwarder({ store, bus, database: test.database, name });
    await c.waitFor(20);
    await waitUntil(async () => (await checkpoint(name)) === formatPosition(appended[19]!.position));
    await sleep(500);
    await Promise.all([c.stop(), restarted.stop()]);
    expect(c.received.map((r) => r.msgId)).toEqual(appended.map((e) => e.id));
  });

  it("writes its checkpoint at most once per interval while it publishes, and what it held back when it stops", async () => {
    const cat = category();
    const name = `f-${cat}`;
    // Appended before the start: the catch-up's one batch ends with it, and its checkpoint is the first write.
    const first = await append(`${cat}-${randomUUID()}`, "Happened");
    const forwarder = await startForwarder({ store, bus, database: test.database, name, checkpointEveryMs: 60_000 });
    const c = await recordingConsumer(bus, { durable: `${cat}-c`, filterSubject: `events.${cat}.>`, maxDeliver: 3 });
    await c.waitFor(1, 5_000);
    await waitUntil(async () => (await checkpoint(name)) === formatPosition(first.position));
    const second = await append(`${cat}-${randomUUID()}`, "Happened");
    await c.waitFor(2, 5_000);
    await sleep(300);
    expect(await checkpoint(name), "a second write within the interval").toBe(formatPosition(first.position));
    await Promise.all([c.stop(), forwarder.stop()]);
    expect(await checkpoint(name)).toBe(formatPosition(second.position));
  });

  it("forwards events appended while it runs", async () => {
    const cat = category();
    const forwarder = await startForwarder({ store, bus, database: test.database, name: `f-${cat}` });
    const c = await recordingConsumer(bus, { durable: `${cat}-c`, filterSubject: `events.${cat}.>`, maxDeliver: 3 });
    for (let i = 1; i <= 5; i++) {
      await append(`${cat}-${randomUUID()}`, "Happened");
      await c.waitFor(i, 5_000);
    }
    await Promise.all([c.stop(), forwarder.stop()]);
    expect(c.received.map((r) => r.subject)).toEqual(Array(5).fill(`events.${cat}.Happened`));
  });

  it("runs one instance per name: a second one waits, and takes over when the first stops", async () => {
    const cat = category();
    const name = `f-${cat}`;
    const first = await startForwarder({ store, bus, database: test.database, name });
    await waitUntil(() => first.leading);
    const second = await startForwarder({ store, bus, database: test.database, name, retryDelayMs: 100 });
    await sleep(300);
    expect(second.leading).toBe(false);

    await first.stop();
    await waitUntil(() => second.leading, 5_000);
    const c = await recordingConsumer(bus, { durable: `${cat}-c`, filterSubject: `events.${cat}.*`, maxDeliver: 3 });
    await append(`${cat}-${randomUUID()}`, "AfterTakeover");
    await c.waitFor(1, 5_000);
    await Promise.all([c.stop(), second.stop()]);
  });
  it("moves its checkpoint only from where it left it, so a forwarder that lost its lock cannot move another's back", async () => {
    await migrate(test.database, "forwarder", forwarderMigrations);
    const name = `fenced-${category()}`;
    const p = (commit: bigint, prepare: bigint) => ({ commit, prepare });
    expect(await moveForwarderCheckpoint(test.database.db, name, START, p(10n, 10n))).toBe(true);
    expect(await moveForwarderCheckpoint(test.database.db, name, p(10n, 10n), p(20n, 20n))).toBe(true);
    // A stale leader still believes the checkpoint is at 10/10.
    expect(await moveForwarderCheckpoint(test.database.db, name, p(10n, 10n), p(15n, 15n))).toBe(false);
    expect(await checkpoint(name)).toBe(formatPosition(p(20n, 20n)));
    expect(await moveForwarderCheckpoint(test.database.db, name, START, p(5n, 5n))).toBe(false);
  });
});
