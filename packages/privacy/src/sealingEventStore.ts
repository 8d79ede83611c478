import { subscriptionBatches, type EventStore, type RecordedEvent, type Subscription } from "@tidings/eventstore";
import { openEvents } from "./openEvents.js";
import { sealEvents, type SealingDeps } from "./sealEvents.js";

/**
 * The event store as commands, projections and sagas see it (docs/privacy.md): personal values are sealed
 * on the way in and opened on the way out, so none of them handles ciphertext. The store below keeps
 * and hashes the sealed form: `audit verify` and `audit export` read it, and the forwarder publishes it,
 * so the bus holds no personal value in clear either.
 */
export function createSealingEventStore(inner: EventStore, deps: SealingDeps): EventStore {
  const open = (events: RecordedEvent[]) => openEvents(deps.keys, events);
  return {
    append: async (streamId, events, expectedRevision, options) =>
      inner.append(streamId, await sealEvents(deps, streamId, events), expectedRevision, options),
    appendMany: async (appends, options) =>
      inner.appendMany(
        await Promise.all(appends.map(async (a) => ({ ...a, events: await sealEvents(deps, a.streamId, a.events) }))),
        options,
      ),
    readStream: async (streamId, options) => open(await inner.readStream(streamId, options)),
    readAll: async (options) => open(await inner.readAll(options)),
    subscribeToAll: (options) => openingSubscription(inner.subscribeToAll(options), open),
    deleteStream: (streamId) => inner.deleteStream(streamId),
    headPosition: () => inner.headPosition(),
    committedPosition: () => inner.committedPosition(),
    ...(inner.streamHeads ? { streamHeads: () => inner.streamHeads!() } : {}),
    close: () => inner.close(),
  };
}

/**
 * Opens a subscription's events a page at a time: the events the subscription already holds are opened
 * together, with one key lookup, rather than one lookup per event.
 */
function openingSubscription(inner: Subscription, open: (events: RecordedEvent[]) => Promise<RecordedEvent[]>): Subscription {
  return {
    stop: () => inner.stop(),
    async *[Symbol.asyncIterator]() {
      for await (const batch of subscriptionBatches(inner, 500, 0)) yield* await open(batch);
    },
  };
}
