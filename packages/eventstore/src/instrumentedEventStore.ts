import { secondsSince, type Metrics } from "@tidings/core";
import { streamCategory, WrongExpectedRevisionError, type EventStore } from "./port.js";

/**
 * The event store with its appends measured (docs/operations.md, "Metrics"): latency by outcome, events per
 * append, and conflicts by stream category. Wrapped around the store as stored, so a sealed append is timed
 * once, without the sealing above it. With metrics off it is the store itself.
 */
export function instrumentEventStore(inner: EventStore, metrics: Metrics): EventStore {
  if (!metrics.enabled) return inner;
  const latency = metrics.histogram({
    name: "tidings_eventstore_append_seconds",
    help: "Time an append (one stream) or appendMany (several in one transaction) took, by outcome: ok, conflict, error",
    labels: ["operation", "outcome"],
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
  });
  const sizes = metrics.histogram({
    name: "tidings_eventstore_append_events",
    help: "Events written by one append or appendMany",
    labels: ["operation"],
    buckets: [1, 2, 5, 10, 25, 100, 500, 1000],
  });
  const conflicts = metrics.counter({
    name: "tidings_eventstore_append_conflicts_total",
    help: "Appends refused because their stream was not at the expected revision, by stream category",
    labels: ["category"],
  });
  const measured = async <T>(operation: "append" | "appendMany", events: number, run: () => Promise<T>): Promise<T> => {
    const startedAt = performance.now();
    try {
      const result = await run();
      latency.observe({ operation, outcome: "ok" }, secondsSince(startedAt));
      sizes.observe({ operation }, events);
      return result;
    } catch (error) {
      const conflict = error instanceof WrongExpectedRevisionError;
      latency.observe({ operation, outcome: conflict ? "conflict" : "error" }, secondsSince(startedAt));
      if (conflict) conflicts.inc({ category: streamCategory(error.streamId) });
      throw error;
    }
  };
  return {
    ...boundEventStore(inner),
    append: (streamId, events, expected, options) =>
      measured("append", events.length, () => inner.append(streamId, events, expected, options)),
    appendMany: (appends, options) =>
      measured(
        "appendMany",
        appends.reduce((n, a) => n + a.events.length, 0),
        () => inner.appendMany(appends, options),
      ),
  };
}

/** The store's methods bound to it, to pass through unchanged. */
export function boundEventStore(inner: EventStore): EventStore {
  return {
    append: (...args) => inner.append(...args),
    appendMany: (...args) => inner.appendMany(...args),
    readStream: (...args) => inner.readStream(...args),
    readAll: (...args) => inner.readAll(...args),
    subscribeToAll: (...args) => inner.subscribeToAll(...args),
    deleteStream: (...args) => inner.deleteStream(...args),
    headPosition: () => inner.headPosition(),
    committedPosition: () => inner.committedPosition(),
    ...(inner.streamHeads ? { streamHeads: () => inner.streamHeads!() } : {}),
    close: () => inner.close(),
  };
}
