import {
  START as START_POSITION,
  type AppendResult,
  type EventStore,
  type EventToAppend,
  type ExpectedRevision,
  type Position,
  type RecordedEvent,
  type Subscription,
} from "../port.js";
import { erasureRecord } from "../integrity/erasure.js";
import { ERASURE_STREAM } from "../integrity/records.js";
import { fromAll, toEsdbFilter } from "./allFilter.js";
import { BACKWARDS, END, FORWARDS, START, type AllStreamResolvedEvent, type EsdbClient } from "./client.js";
import { isStreamNotFound, toWrongExpectedRevisionError } from "./clientErrors.js";
import { chainedAppend } from "./chainedAppend.js";
import { consumeRead } from "./consumeRead.js";
import { isSystemEvent, positionOf, toEventData, toRecordedEvent } from "./events.js";
import { toEsdbExpectedRevision, toEsdbReadRevision } from "./revisions.js";
import { subscriptionOf } from "./subscription.js";

/**
 * The event store port on EventStoreDB. Differences from the PostgreSQL adapter that the port allows:
 * - `deleteStream` truncates the stream after its last event. The stream reads as empty at once, but `$all`
 *   (readAll, subscribeToAll, headPosition) keeps its events until the next scavenge, and a stream appended
 *   to again continues its revisions after the deleted ones instead of starting at 0.
 * - The `$all` filters of `readAll` are applied here, not on the server: client 6.x cannot send them.
 * - `appendMany` is not atomic: client 6.x has no multi-stream transaction, so the streams are appended one
 *   after another, and a failure part-way leaves the earlier ones written (port.ts says what callers do).
 */
export function createEsdbEventStore(client: EsdbClient): EventStore {
  const subscriptions = new Set<Subscription>();
  let closing: Promise<void> | undefined;

  async function readStreamEvents(
    streamId: string,
    options: Parameters<EsdbClient["readStream"]>[1],
    take: (event: RecordedEvent) => boolean,
  ): Promise<void> {
    try {
      await consumeRead(client.readStream(streamId, options), (resolved) =>
        resolved.event ? take(toRecordedEvent(resolved.event)) : true,
      );
    } catch (error) {
      if (!isStreamNotFound(error)) throw error;
    }
  }

  async function positionOfRevision(streamId: string, revision: bigint): Promise<Position | undefined> {
    let position: Position | undefined;
    try {
      await consumeRead(client.readStream(streamId, { fromRevision: revision, maxCount: 1 }), (resolved) => {
        position = resolved.event && positionOf(resolved.event);
        return true;
      });
    } catch (error) {
      if (!isStreamNotFound(error)) throw error;
    }
    return position;
  }

  async function newestPosition(): Promise<Position> {
    let head = START_POSITION;
    // The newest entries of `$all` can be system events (stream metadata, scavenge records): skip them.
    await consumeRead(client.readAll({ direction: BACKWARDS, fromPosition: END }), (resolved) => {
      const event = resolved.event;
      if (!event || isSystemEvent(event)) return true;
      head = positionOf(event) ?? head;
      return false;
    });
    return head;
  }

  async function write(streamId: string, events: EventToAppend[], expected: ExpectedRevision) {
    let result;
    try {
      result = await client.appendToStream(streamId, events.map(toEventData), { expectedRevision: toEsdbExpectedRevision(expected) });
    } catch (error) {
      throw toWrongExpectedRevisionError(error, streamId, expected) ?? error;
    }
    // openEsdbEventStore refuses `throwOnAppendFailure=false`, under which a refused write would be answered, not thrown.
    if (!result.success) throw new Error(`EventStoreDB refused the append to ${streamId} without saying why`);
    return result;
  }

  const chainDeps = {
    async newest(streamId: string, count: number) {
      const events: RecordedEvent[] = [];
      await readStreamEvents(streamId, { direction: BACKWARDS, fromRevision: END, maxCount: count }, (event) => {
        events.push(event);
        return true;
      });
      return events;
    },
    async range(streamId: string, from: bigint, count: number) {
      const events: RecordedEvent[] = [];
      await readStreamEvents(streamId, { direction: FORWARDS, fromRevision: from, maxCount: count }, (event) => {
        events.push(event);
        return true;
      });
      return events;
    },
    async deletedUpTo(streamId: string) {
      const { metadata } = await client.getStreamMetadata(streamId);
      const before = metadata?.truncateBefore;
      if (before === undefined) return undefined;
      // deleteStream truncates at the revision after the last; EventStoreDB's own soft delete marks 2^63-1,
      // which JSON cannot even carry exactly, and says nothing of where the revisions went on.
      if (typeof before !== "number" || !Number.isSafeInteger(before))
        throw new Error(
          `stream ${streamId} was deleted by EventStoreDB's own soft delete, not by Tidings: its revisions cannot be continued`,
        );
      return BigInt(before);
    },
    write,
  };

  async function append(streamId: string, events: EventToAppend[], expectedRevision: ExpectedRevision): Promise<AppendResult> {
    const appended = await chainedAppend(chainDeps, streamId, events, expectedRevision);
    // The server answers with the position of its commit, and on an idempotent retry with one it does not
    // document. Readers compare this position with the events' own `$all` positions, so read the last event
    // back and take its position; servers before 22.6 report none on stream reads, and then the answer is used.
    const position =
      (await positionOfRevision(streamId, appended.nextExpectedRevision)) ??
      ("position" in appended ? (appended.position as Position | undefined) : undefined);
    if (!position) throw new Error(`EventStoreDB reported no position for the append to ${streamId}`);
    return { nextExpectedRevision: appended.nextExpectedRevision, position };
  }

  return {
    append,

    // No multi-stream transaction in client 6.x: one stream after another, each idempotent on retry (port.ts).
    async appendMany(appends) {
      if (new Set(appends.map((a) => a.streamId)).size !== appends.length) throw new Error("appendMany names a stream more than once");
      const results: AppendResult[] = [];
      for (const { streamId, events, expectedRevision } of appends) results.push(await append(streamId, events, expectedRevision));
      return results;
    },

    async readStream(streamId, options = {}) {
      const direction = options.direction ?? "forwards";
      if (options.maxCount !== undefined && options.maxCount <= 0) return [];
      const events: RecordedEvent[] = [];
      await readStreamEvents(
        streamId,
        {
          direction: direction === "backwards" ? BACKWARDS : FORWARDS,
          fromRevision: toEsdbReadRevision(options.fromRevision, direction),
          ...(options.maxCount !== undefined && { maxCount: options.maxCount }),
        },
        (event) => {
          events.push(event);
          return true;
        },
      );
      return events;
    },

    async readAll(options = {}) {
      const { after, maxCount, filter } = options;
      if (maxCount !== undefined && maxCount <= 0) return [];
      const events: RecordedEvent[] = [];
      await consumeRead(client.readAll({ fromPosition: after ?? START }), (resolved) => {
        const event = fromAll(resolved, after, filter);
        if (event) events.push(event);
        return maxCount === undefined || events.length < maxCount;
      });
      return events;
    },

    subscribeToAll(options = {}) {
      const { after, filter } = options;
      const source = client.subscribeToAll({ fromPosition: after ?? START, filter: toEsdbFilter(filter) });
      const subscription: Subscription = subscriptionOf<AllStreamResolvedEvent>(
        source,
        (resolved) => fromAll(resolved, after, filter),
        () => subscriptions.delete(subscription),
      );
      subscriptions.add(subscription);
      return subscription;
    },

    // The erasure record goes first: a crash between the two leaves a record of a stream still there,
    // which a verifier reports, rather than a stream gone without one (docs/operations.md, "Integrity").
    // The stream is truncated after its last event rather than soft-deleted: a soft delete marks it with
    // truncate-before 2^63-1, which says nothing of the revision an append to it goes on from, while this
    // truncate-before is exactly that revision. An append racing the erasure may land after the read and
    // survive it, chained to an erased event: verify then reports that stream (PostgreSQL locks instead).
    async deleteStream(streamId) {
      const events: RecordedEvent[] = [];
      await readStreamEvents(streamId, { direction: FORWARDS, fromRevision: START }, (event) => {
        events.push(event);
        return true;
      });
      if (events.length === 0) return;
      await append(ERASURE_STREAM, [erasureRecord(streamId, events)], "any");
      await client.setStreamMetadata(streamId, { truncateBefore: Number(events.at(-1)!.revision + 1n) });
    },

    headPosition: newestPosition,
    // `$all` is in commit order: its newest event is past every committed one.
    committedPosition: newestPosition,

    close() {
      closing ??= (async () => {
        await Promise.all([...subscriptions].map((subscription) => subscription.stop()));
        await client.dispose();
      })();
      return closing;
    },
  };
}
