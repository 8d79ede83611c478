import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, migrate, testMode, type Database, type TestDatabase } from "@tidings/postgres";
import { eventStoreContract, type EventStoreFixture } from "../testing/contract.js";
import { aCategory, anEvent, aStreamId, events, readAllUntil, SubscriptionReader } from "../testing/contractBuilders.js";
import { expectConcurrentAppendsDeliveredOnce } from "../testing/contractConcurrency.js";
import type { EventStore, RecordedEvent } from "../port.js";
import { isWithheld } from "../withheldData.js";
import { eventStoreMigrations } from "./migrations.js";
import { createPostgresEventStore } from "./postgresEventStore.js";

// One database for the whole file: a PGlite costs seconds and hundreds of megabytes to start.
let test: TestDatabase;
let database: Database;
beforeAll(async () => {
  test = await createTestDatabase({ persistent: true });
  database = test.database;
  await migrate(database, "eventstore", eventStoreMigrations);
});
afterAll(async () => {
  await test?.dispose();
});

async function postgresFixture(): Promise<EventStoreFixture> {
  // The store closes its database, so the contract can hand a PGlite directory to a child process.
  let store = createPostgresEventStore(database, { ownsDatabase: true });
  const others: EventStore[] = [];
  const closeOthers = () => Promise.all(others.splice(0).map((other) => other.close()));
  return {
    get store() {
      return store;
    },
    url: test.url,
    async reopen() {
      await closeOthers();
      await store.close();
      database = await test.reopen();
      store = createPostgresEventStore(database, { ownsDatabase: true });
      return store;
    },
    another() {
      const other = createPostgresEventStore(database);
      others.push(other);
      return other;
    },
    async dispose() {
      await closeOthers();
      await store.close();
    },
  };
}

eventStoreContract(testMode() === "server" ? "PostgreSQL" : "PGlite", postgresFixture);

describe("PostgreSQL event store", () => {
  let store: EventStore;
  beforeAll(async () => {
    database = await test.reopen();
    store = createPostgresEventStore(database, { batchSize: 3, pollIntervalMs: 100 });
  });
  afterAll(async () => {
    await store?.close();
  });

  it("removes a deleted stream's events from $all at once", async () => {
    const category = aCategory();
    const kept = aStreamId(category);
    const deleted = aStreamId(category);
    const before = await store.headPosition();
    await store.append(deleted, events(2), "no_stream");
    await store.append(kept, events(1), "no_stream");
    const filter = { streamCategory: [category] };
    await readAllUntil(store, { after: before, filter }, (r) => r.length === 3);
    await store.deleteStream(deleted);
    expect((await store.readAll({ after: before, filter })).map((e) => e.streamId)).toEqual([kept]);
  });

  it("hands the events of types a reader did not name in dataTypes without their data, in a read and a subscription alike", async () => {
    const category = aCategory();
    const before = await store.headPosition();
    const named = anEvent({ type: "Named" });
    const other = anEvent({ type: "Other" });
    await store.append(aStreamId(category), [named, other], "no_stream");
    const options = { after: before, filter: { streamCategory: [category] }, dataTypes: new Set(["Named"]) };
    const expectWithheld = (read: RecordedEvent[]) => {
      expect(read.map((e) => [e.id, e.type])).toEqual([
        [named.id, "Named"],
        [other.id, "Other"],
      ]);
      expect(read[0]!.data).toEqual(named.data);
      expect(() => read[1]!.data).toThrow("the data of a Other was read by a reader that did not name the type in its dataTypes");
      expect(isWithheld(read[1]!)).toBe(true);
    };
    expectWithheld(await readAllUntil(store, options, (r) => r.length === 2));
    const reader = new SubscriptionReader(store.subscribeToAll(options));
    try {
      expectWithheld(await reader.take(2, 10_000));
    } finally {
      await reader.subscription.stop();
    }
    expect((await store.readAll({ ...options, dataTypes: undefined })).map((e) => e.data)).toEqual([named.data, other.data]);
  });

  it("refuses an event id that another stream already holds", async () => {
    const shared = events(1);
    await store.append(aStreamId(), shared, "no_stream");
    await expect(store.append(aStreamId(), shared, "no_stream")).rejects.toThrow(/already used by another event/);
  });

  it("commits appends that wait together in one transaction, and fails only an append at fault", async () => {
    // One round trip in flight: the appends queued behind the first go together in one transaction.
    const grouped = createPostgresEventStore(database, { appendsInFlight: 1 });
    try {
      const taken = events(1);
      await grouped.append(aStreamId(), taken, "no_stream");
      const existing = aStreamId();
      await grouped.append(existing, events(1), "no_stream");
      const good = Array.from({ length: 4 }, () => aStreamId());
      const outcomes = await Promise.allSettled([
        grouped.append(aStreamId(), events(1), "no_stream"),
        ...good.map((stream) => grouped.append(stream, events(2), "no_stream")),
        grouped.append(aStreamId(), taken, "no_stream"),
        grouped.append(existing, events(1), "no_stream"),
      ]);
      expect(outcomes.map((o) => o.status)).toEqual([
        "fulfilled",
        "fulfilled",
        "fulfilled",
        "fulfilled",
        "fulfilled",
        "rejected",
        "rejected",
      ]);
      expect((outcomes[5] as PromiseRejectedResult).reason).toMatchObject({
        message: expect.stringMatching(/already used by another event/),
      });
      expect((outcomes[6] as PromiseRejectedResult).reason).toMatchObject({ name: "WrongExpectedRevisionError", actual: 0n });
      for (const stream of good) expect(await grouped.readStream(stream)).toHaveLength(2);

      const together = await Promise.all(
        [aStreamId(), ...good].map((stream, i) => grouped.append(stream, events(1), i === 0 ? "no_stream" : 1n)),
      );
      expect(together.slice(1).map((r) => r.nextExpectedRevision)).toEqual([2n, 2n, 2n, 2n]);
      expect(new Set(together.slice(1).map((r) => r.position.commit)).size).toBe(1);
      expect(new Set(together.map((r) => r.position.prepare)).size).toBe(5);
    } finally {
      await grouped.close();
    }
  });

  it("delivers live events on NOTIFY, without waiting for a poll", async () => {
    const notified = createPostgresEventStore(database, { pollIntervalMs: 600_000 });
    const category = aCategory();
    const subscription = notified.subscribeToAll({ after: await notified.headPosition(), filter: { streamCategory: [category] } });
    try {
      // The first read must be over, with the subscription waiting live, before the append.
      const delivered = new SubscriptionReader(subscription).take(1, 20_000);
      await new Promise((resolve) => setTimeout(resolve, 300));
      const appended = events(1);
      await store.append(aStreamId(category), appended, "no_stream");
      expect((await delivered).map((e) => e.id)).toEqual(appended.map((e) => e.id));
    } finally {
      await notified.close();
    }
  });

  it("delivers every event exactly once while eight store instances append in concurrent transactions", async () => {
    const writers = Array.from({ length: 8 }, () => createPostgresEventStore(database));
    try {
      await expectConcurrentAppendsDeliveredOnce(store, writers);
    } finally {
      await Promise.all(writers.map((w) => w.close()));
    }
  });

  it("puts a large batch in $all in revision order", async () => {
    const stream = aStreamId();
    await store.append(stream, events(1000), "no_stream");
    const read = await store.readStream(stream);
    const prepares = read.map((e) => e.position.prepare);
    expect(prepares).toEqual([...prepares].sort((a, b) => (a < b ? -1 : 1)));
    expect(new Set(read.map((e) => e.position.commit)).size).toBe(1);
  });

  it("pages a catch-up in small batches, past pages where the filter matches nothing", async () => {
    const category = aCategory();
    const before = await store.headPosition();
    const wanted: string[] = [];
    for (let i = 0; i < 4; i++) {
      await store.append(aStreamId(), events(7), "no_stream");
      const one = events(1);
      await store.append(aStreamId(category), one, "no_stream");
      wanted.push(one[0]!.id);
    }
    const subscription = store.subscribeToAll({ after: before, filter: { streamCategory: [category] } });
    try {
      expect((await new SubscriptionReader(subscription).take(4)).map((e) => e.id)).toEqual(wanted);
    } finally {
      await subscription.stop();
    }
  });
});
