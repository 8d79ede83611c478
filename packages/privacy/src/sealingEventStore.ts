import { subscriptionBatches, type EventStore, type ExpectedRevision, type RecordedEvent, type Subscription } from "@tidings/eventstore";
import type { Keyring } from "./keyring.js";
import { openEvents } from "./openEvents.js";
import { sealEvents } from "./sealEvents.js";
import { createStreamSubjects } from "./streamSubjects.js";
import type { SubjectHasher } from "./subjectHash.js";

/**
 * The event store as commands, projections and sagas see it (docs/privacy.md): personal values are sealed
 * on the way in and opened on the way out, so none of them handles ciphertext. The store below keeps
 * and hashes the sealed form: `audit verify` and `audit export` read it, and the forwarder publishes it,
 * so the bus holds no personal value in clear either.
 */
export function createSealingEventStore(inner: EventStore, deps: { keyring: Keyring; hashSubject: SubjectHasher }): EventStore {
  const open = (events: RecordedEvent[], dataTypes?: ReadonlySet<string>, unopenedTypes?: ReadonlySet<string>) =>
    openEvents(deps.keyring, events, dataTypes, unopenedTypes);
  const streams = createStreamSubjects(inner);
  const sealing = { ...deps, streamSubjects: (streamId: string, kind: Parameters<typeof streams.of>[1]) => streams.of(streamId, kind) };
  const seal = async (streamId: string, events: Parameters<EventStore["append"]>[1], expected: ExpectedRevision) => {
    const sealed = await sealEvents(sealing, streamId, events);
    streams.learn(streamId, sealed, expected === "no_stream");
    return sealed;
  };
  return {
    append: async (streamId, events, expectedRevision, options) =>
      inner.append(streamId, await seal(streamId, events, expectedRevision), expectedRevision, options),
    appendMany: async (appends, options) =>
      inner.appendMany(
        await Promise.all(appends.map(async (a) => ({ ...a, events: await seal(a.streamId, a.events, a.expectedRevision) }))),
        options,
      ),
    readStream: async (streamId, options) => {
      const events = await inner.readStream(streamId, options);
      streams.learn(streamId, events, !options?.fromRevision && options?.maxCount === undefined);
      return open(events, undefined, options?.unopenedTypes);
    },
    readAll: async (options) => open(await inner.readAll(options), options?.dataTypes),
    subscribeToAll: (options) => openingSubscription(inner.subscribeToAll(options), (events) => open(events, options?.dataTypes)),
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
