import { sql } from "kysely";
import type { Database } from "@tidings/postgres";
import {
  START,
  type AppendOptions,
  type AppendResult,
  type EventStore,
  type EventToAppend,
  type ExpectedRevision,
  type Position,
  type ReadAllOptions,
  type ReadStreamOptions,
  type StreamAppend,
  type RecordedEvent,
  type SubscribeOptions,
  type Subscription,
} from "../port.js";
import { readAllPage } from "./allReader.js";
import { eraseStream, streamHeads } from "./erasure.js";
import { AppendSignal } from "./appendSignal.js";
import { GroupCommit } from "./groupCommit.js";
import { groupRead } from "./groupRead.js";
import { APPENDED_CHANNEL } from "./migrations.js";
import { eventColumns, toRecordedEvent, type EventRow } from "./recordedEvent.js";
import { sharedPageReads } from "./sharedPageReads.js";
import { postgresSubscription } from "./subscription.js";

export interface PostgresEventStoreOptions {
  /** Events per page a subscription reads (default 500). */
  batchSize?: number;
  /** How often a live subscription polls besides waiting for NOTIFY (default 500 ms). */
  pollIntervalMs?: number;
  /** Append round trips in flight at once; appends arriving meanwhile wait and commit together (default 1). */
  appendsInFlight?: number;
  /** Reads of a stream from one end in flight at once, per end; reads arriving meanwhile go together (default 2). */
  readsInFlight?: number;
  /** `close()` also closes `database` (default false: in embedded mode read models and the bus share it). */
  ownsDatabase?: boolean;
}

/**
 * The event store on PostgreSQL or PGlite. The database must have `eventStoreMigrations` applied.
 */
export function createPostgresEventStore(database: Database, options: PostgresEventStoreOptions = {}): EventStore {
  const { db } = database;
  const batchSize = options.batchSize ?? 500;
  const pollIntervalMs = options.pollIntervalMs ?? 500;
  const signal = new AppendSignal();
  const groupCommit = new GroupCommit(db, {
    // Measured on PostgreSQL with 8 writers: one round trip in flight, carrying everything that waited,
    // beats two (fewer WAL flushes); PGlite is one session, where a second would only queue.
    inFlight: options.appendsInFlight ?? 1,
    maxEvents: 5_000,
  });
  // Two, not one: a command's read waits behind at most one set, while a burst of saga reads still groups.
  const readFromStart = groupRead(db, { backwards: false, inFlight: options.readsInFlight ?? 2, max: 500 });
  const readFromEnd = groupRead(db, { backwards: true, inFlight: options.readsInFlight ?? 2, max: 500 });
  const readPage = sharedPageReads((after, limit, filter, dataTypes) => readAllPage(db, after, limit, filter, dataTypes));
  const subscriptions = new Set<Subscription>();
  let listening: Promise<() => Promise<void>> | undefined;
  let closed = false;

  const open = () => {
    if (closed) throw new Error("the event store is closed");
  };

  return {
    async append(
      streamId: string,
      events: EventToAppend[],
      expectedRevision: ExpectedRevision,
      options: AppendOptions = {},
    ): Promise<AppendResult> {
      open();
      const [result] = await groupCommit.append([{ streamId, events, expectedRevision }], options.immediate ?? false);
      return result!;
    },

    async appendMany(appends: StreamAppend[], options: AppendOptions = {}): Promise<AppendResult[]> {
      open();
      return groupCommit.append(appends, options.immediate ?? false);
    },

    async readStream(streamId: string, options: ReadStreamOptions = {}): Promise<RecordedEvent[]> {
      open();
      const backwards = options.direction === "backwards";
      const from = options.fromRevision ?? (backwards ? "end" : "start");
      if (!backwards && from === "end") return [];
      if (from === "start" && !backwards) return readFromStart(streamId, options.maxCount);
      if (from === "end" && backwards) return readFromEnd(streamId, options.maxCount);
      const bound =
        from === "start" ? sql`e.revision <= 0` : sql`e.revision ${sql.raw(backwards ? "<=" : ">=")} ${from.toString()}::bigint`;
      const { rows } = await sql<EventRow>`
        SELECT ${sql.raw(eventColumns)} FROM eventstore.events e
         WHERE e.stream_id = ${streamId} AND ${bound}
         ORDER BY e.revision ${sql.raw(backwards ? "DESC" : "ASC")}
         ${options.maxCount === undefined ? sql`` : sql`LIMIT ${options.maxCount}`}`.execute(db);
      return rows.map(toRecordedEvent);
    },

    async readAll(options: ReadAllOptions = {}): Promise<RecordedEvent[]> {
      open();
      const page = await readAllPage(db, options.after ?? START, options.maxCount, options.filter, options.dataTypes);
      return page.events;
    },

    subscribeToAll(options: SubscribeOptions = {}): Subscription {
      open();
      // A failed LISTEN is not kept: the next subscription tries again.
      listening ??= database
        .listen(APPENDED_CHANNEL, (payload) => signal.notify(payload))
        .catch((error: unknown) => {
          listening = undefined;
          throw error;
        });
      const { subscription, stopped } = postgresSubscription(
        { readPage, signal, listening: listening.then(() => {}), batchSize, pollIntervalMs },
        options,
      );
      subscriptions.add(subscription);
      void stopped.then(() => subscriptions.delete(subscription));
      return subscription;
    },

    async deleteStream(streamId: string): Promise<void> {
      open();
      await eraseStream(db, streamId);
    },

    async *streamHeads() {
      open();
      yield* streamHeads(db);
    },

    async headPosition(): Promise<Position> {
      open();
      // Only what readers can see: subscribing after this position never skips an event in flight.
      const { rows } = await sql<{ tx_id: string; seq: string }>`
        SELECT e.tx_id::text AS tx_id, e.seq::text AS seq FROM eventstore.events e
         WHERE e.tx_id < pg_snapshot_xmin(pg_current_snapshot())
         ORDER BY e.tx_id DESC, e.seq DESC LIMIT 1`.execute(db);
      const row = rows[0];
      return row ? { commit: BigInt(row.tx_id), prepare: BigInt(row.seq) } : START;
    },

    async committedPosition(): Promise<Position> {
      open();
      const { rows } = await sql<{ tx_id: string; seq: string }>`
        SELECT e.tx_id::text AS tx_id, e.seq::text AS seq FROM eventstore.events e ORDER BY e.tx_id DESC, e.seq DESC LIMIT 1`.execute(db);
      const row = rows[0];
      return row ? { commit: BigInt(row.tx_id), prepare: BigInt(row.seq) } : START;
    },

    async close(): Promise<void> {
      if (closed) return;
      closed = true;
      await Promise.all([groupCommit.idle(), ...[...subscriptions].map((s) => s.stop())]);
      if (listening)
        await listening.then(
          (unlisten) => unlisten(),
          () => {},
        );
      if (options.ownsDatabase) await database.close();
    },
  };
}
