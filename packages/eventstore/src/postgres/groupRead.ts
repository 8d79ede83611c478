import { sql, type Kysely } from "kysely";
import type { RecordedEvent } from "../port.js";
import { eventColumns, toRecordedEvent, type EventRow } from "./recordedEvent.js";

export interface GroupReadOptions {
  /** Reads from the end, newest first (the last event of a reservation, say); else from the start. */
  backwards: boolean;
  /** Round trips in flight at once; reads arriving meanwhile wait and go together in the next one. */
  inFlight: number;
  /** At most this many streams in one round trip. */
  maxStreams: number;
}

interface PendingRead {
  streamId: string;
  /** null: the whole stream. */
  maxCount: number | null;
  resolve(events: RecordedEvent[]): void;
  reject(error: unknown): void;
}

/**
 * Group reads for this process's reads of a stream from one end: from the start, the ones a decider folds,
 * a saga loads, a webhook payload is built from; from the end, a reservation's current owner. A read that finds a round trip free goes at once, alone; reads that
 * arrive while every round trip is busy wait and then go together, as one statement over all their
 * streams. Under load most reads of the sagas wait for one anyway, so a burst of a few hundred costs one
 * statement and one socket write instead of a few hundred (each of which PostgreSQL parses, plans and
 * answers on its own). A read sees every append that committed before its statement began, as alone.
 */
export class GroupRead {
  private readonly queue: PendingRead[] = [];
  private busy = 0;

  constructor(
    private readonly db: Kysely<unknown>,
    private readonly options: GroupReadOptions,
  ) {}

  /** The stream's first `maxCount` events (all when undefined), oldest first; backwards, its last ones, newest first. */
  read(streamId: string, maxCount?: number): Promise<RecordedEvent[]> {
    return new Promise((resolve, reject) => {
      this.queue.push({ streamId, maxCount: maxCount ?? null, resolve, reject });
      this.pump();
    });
  }

  private pump(): void {
    while (this.busy < this.options.inFlight && this.queue.length > 0) {
      const set = this.queue.splice(0, this.options.maxStreams);
      this.busy++;
      void this.run(set).finally(() => {
        this.busy--;
        this.pump();
      });
    }
  }

  private async run(set: PendingRead[]): Promise<void> {
    try {
      const rows = set.length === 1 ? await this.readOne(set[0]!) : await this.readSet(set);
      const byRead: RecordedEvent[][] = set.map(() => []);
      for (const row of rows) byRead[Number(row.ord)]!.push(toRecordedEvent(row));
      set.forEach((read, i) => read.resolve(byRead[i]!));
    } catch (error) {
      for (const read of set) read.reject(error);
    }
  }

  private order() {
    return sql.raw(this.options.backwards ? "DESC" : "ASC");
  }

  private async readOne(read: PendingRead): Promise<(EventRow & { ord: string })[]> {
    const { rows } = await sql<EventRow & { ord: string }>`
      SELECT 0 AS ord, ${sql.raw(eventColumns)} FROM eventstore.events e
       WHERE e.stream_id = ${read.streamId}
       ORDER BY e.revision ${this.order()}
       LIMIT ${read.maxCount}`.execute(this.db);
    return rows;
  }

  /** LIMIT NULL is no limit; `ord` is the read's index in the set (ordinality counts from 1). */
  private async readSet(set: PendingRead[]): Promise<(EventRow & { ord: string })[]> {
    const { rows } = await sql<EventRow & { ord: string }>`
      SELECT (r.ord - 1)::int AS ord, e.* FROM unnest(${set.map((r) => r.streamId)}::text[], ${set.map((r) => r.maxCount)}::int[])
        WITH ORDINALITY AS r(stream_id, max_count, ord)
      CROSS JOIN LATERAL (
        SELECT e.revision AS at_revision, ${sql.raw(eventColumns)} FROM eventstore.events e
         WHERE e.stream_id = r.stream_id
         ORDER BY e.revision ${this.order()}
         LIMIT r.max_count) e
      ORDER BY r.ord, e.at_revision ${this.order()}`.execute(this.db);
    return rows;
  }
}
