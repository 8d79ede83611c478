import { randomUUID } from "node:crypto";
import { createLogger } from "@tidings/core";
import { migrate, type Database } from "@tidings/postgres";
import {
  createPostgresEventStore,
  eventStoreMigrations,
  type EventStore,
  type PostgresEventStoreOptions,
  type Position,
} from "@tidings/eventstore";
import type { Projection } from "../engine/projection.js";

/** Builders for the integration tests: a store on a test database, projections, and events. */

/** How the projection tests' event stores are set up: polling often, so that waits on them stay short. */
export const testStoreOptions: PostgresEventStoreOptions = { pollIntervalMs: 50 };

export async function anEventStore(database: Database): Promise<EventStore> {
  await migrate(database, "eventstore", eventStoreMigrations);
  return createPostgresEventStore(database, testStoreOptions);
}

export const quietLogger = createLogger(process.env.TIDINGS_TEST_LOG ?? "silent");

/** A name of its own per test: projections, tables and views share the test file's database. */
export function aName(): string {
  return `p${randomUUID().replace(/-/g, "").slice(0, 10)}`;
}

export interface CountingOptions {
  version?: number;
  /** Added to a stream's `events` per event (so versions can differ in what they write). */
  weight?: number;
  /** Events of this type leave a NOT NULL column empty: the database rejects the batch. */
  poisonType?: string;
  /** Called by the handler; throwing from it fails the batch in the handler. */
  beforeEach?: () => void;
}

/** The event type a counting projection counts: one per test, as the test file's tests share `$all`. */
export const countedType = (name: string) => `Counted.${name}`;

/**
 * Counts `countedType(name)` events per stream into `<name>_counts` (stream_id, events, last_revision).
 * Ignores every other type, except a poison type when asked.
 */
export function aCountingProjection(name: string, options: CountingOptions = {}): Projection {
  const table = `${name}_counts`;
  const weight = options.weight ?? 1;
  return {
    name,
    version: options.version ?? 1,
    tables: {
      [table]: {
        columns: {
          stream_id: { type: "text" },
          events: { type: "bigint", merge: "add" },
          last_revision: { type: "bigint", merge: "max" },
        },
        primaryKey: ["stream_id"],
        indexes: { by_events: "(events)" },
      },
    },
    handlers: {
      [countedType(name)](event, context) {
        options.beforeEach?.();
        context.upsert(table, { stream_id: event.streamId, events: weight, last_revision: event.revision });
      },
      ...(options.poisonType
        ? {
            [options.poisonType]: (event, context) =>
              // A column set of its own, so it is a statement of its own, after the batch's other writes.
              context.upsert(table, { stream_id: event.streamId, events: 1 }),
          }
        : {}),
    },
  };
}

/** Appends `perStream` events of `type` to each of `streams` new streams; returns the last position. */
export async function appendEvents(store: EventStore, type: string, streams: number, perStream: number): Promise<Position> {
  let last: Position = { commit: 0n, prepare: 0n };
  for (let s = 0; s < streams; s++) {
    const events = Array.from({ length: perStream }, (_, i) => ({ id: randomUUID(), type, data: { i } }));
    last = (await store.append(`counted-${randomUUID()}`, events, "any")).position;
  }
  return last;
}

export async function countsOf(database: Database, name: string): Promise<Map<string, number>> {
  const rows = await database
    .tables<Record<string, { stream_id: string; events: string | number }>>()
    .selectFrom(`${name}_counts`)
    .select(["stream_id", (eb) => eb.cast<string>("events", "text").as("events")])
    .execute();
  return new Map(rows.map((r) => [r.stream_id, Number(r.events)]));
}

export async function until(condition: () => boolean | Promise<boolean>, timeoutMs = 15_000, what = "the condition"): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
