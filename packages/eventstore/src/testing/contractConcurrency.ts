import { expect } from "vitest";
import { aCategory, aStreamId, events, expectStrictlyIncreasing, SubscriptionReader } from "./contractBuilders.js";
import type { AppendResult, EventStore } from "../port.js";

const APPENDS_PER_WRITER = 40;

/**
 * Each writer appends to two streams of its own, one append after another (every fifth an appendMany
 * over both), while `reader` subscribes to `$all`. Passing several store instances as writers makes the appends concurrent transactions, as
 * separate processes would. The subscriber must see every event exactly once, each stream in revision
 * order, with positions strictly increasing.
 */
export async function expectConcurrentAppendsDeliveredOnce(reader: EventStore, writers: EventStore[]): Promise<void> {
  const category = aCategory();
  const streams = writers.map(() => aStreamId(category));
  const sideStreams = writers.map(() => aStreamId(category));
  const batchSizes = Array.from({ length: APPENDS_PER_WRITER }, (_, i) => (i % 5 === 4 ? 3 : 1));
  const total = writers.length * (batchSizes.reduce((a, b) => a + b, 0) + batchSizes.filter((size) => size === 3).length);
  const subscription = reader.subscribeToAll({ after: await reader.headPosition() });
  const subscriber = new SubscriptionReader(subscription, (e) => e.streamId.startsWith(`${category}-`));
  try {
    // The marker goes in after every writer is done: whatever is skipped or delivered twice comes before it.
    const marker = events(1);
    const delivered = subscriber.takeUntil((taken) => taken.at(-1)?.id === marker[0]!.id, "the marker", 60_000);
    const written = await Promise.all(
      writers.map(async (writer, w) => {
        const ids: string[] = [];
        const sideIds: string[] = [];
        let revision: bigint | "no_stream" = "no_stream";
        let sideRevision: bigint | "no_stream" = "no_stream";
        for (const size of batchSizes) {
          const batch = events(size);
          if (size === 1) revision = (await writer.append(streams[w]!, batch, revision)).nextExpectedRevision;
          else {
            const side = events(1);
            [{ nextExpectedRevision: revision }, { nextExpectedRevision: sideRevision }] = (await writer.appendMany([
              { streamId: streams[w]!, events: batch, expectedRevision: revision },
              { streamId: sideStreams[w]!, events: side, expectedRevision: sideRevision },
            ])) as [AppendResult, AppendResult];
            sideIds.push(...side.map((e) => e.id));
          }
          ids.push(...batch.map((e) => e.id));
        }
        return { ids, sideIds };
      }),
    );
    await reader.append(aStreamId(category), marker, "no_stream");
    const received = await delivered;

    const receivedIds = received.slice(0, -1).map((e) => e.id);
    const allWritten = written.flatMap((w) => [...w.ids, ...w.sideIds]);
    expect(allWritten).toHaveLength(total);
    expect([...receivedIds].sort()).toEqual(allWritten.sort());
    expectStrictlyIncreasing(received.map((e) => e.position));
    [
      ...streams.map((stream, i) => [stream, written[i]!.ids] as const),
      ...sideStreams.map((stream, i) => [stream, written[i]!.sideIds] as const),
    ].forEach(([stream, ids]) => {
      const ofStream = received.filter((e) => e.streamId === stream);
      expect(ofStream.map((e) => e.id)).toEqual(ids);
      expect(ofStream.map((e) => e.revision)).toEqual(ofStream.map((_, r) => BigInt(r)));
    });
  } finally {
    await subscription.stop();
  }
}
