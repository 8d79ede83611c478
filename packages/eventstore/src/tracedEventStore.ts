import { activeTraceHeaders, inSpan, tracingEnabled } from "@tidings/core";
import { boundEventStore } from "./instrumentedEventStore.js";
import { streamCategory, type EventStore, type EventToAppend } from "./port.js";

/**
 * The event store with its appends traced (docs/operations.md, "Traces"): a span per append, and the span's
 * W3C `traceparent` in each appended event's metadata (docs/events.md, Metadata), so that the forwarder
 * publishes the event, and a saga handles it, in the trace of the request that caused it. Wrapped around
 * the store as stored: the metadata carries the field before the adapter hashes it into the chain. With
 * tracing off it is the store itself, and nothing is added.
 */
export function traceEventStore(inner: EventStore): EventStore {
  if (!tracingEnabled()) return inner;
  const carrying = (events: EventToAppend[]): EventToAppend[] => {
    const { traceparent } = activeTraceHeaders();
    return traceparent === undefined ? events : events.map((e) => ({ ...e, metadata: { ...e.metadata, traceparent } }));
  };
  const types = (events: EventToAppend[]) => [...new Set(events.map((e) => e.type))].join(",");
  return {
    ...boundEventStore(inner),
    append: (streamId, events, expected, options) =>
      inSpan(
        `append ${streamCategory(streamId)}`,
        "internal",
        {
          "tidings.stream.category": streamCategory(streamId),
          "tidings.stream.id": streamId,
          "tidings.events.count": events.length,
          "tidings.events.types": types(events),
          "tidings.append.expected_revision": String(expected),
        },
        () => inner.append(streamId, carrying(events), expected, options),
      ),
    appendMany: (appends, options) =>
      inSpan(
        "append many",
        "internal",
        {
          "tidings.stream.categories": [...new Set(appends.map((a) => streamCategory(a.streamId)))].join(","),
          "tidings.streams.count": appends.length,
          "tidings.events.count": appends.reduce((n, a) => n + a.events.length, 0),
          "tidings.events.types": types(appends.flatMap((a) => a.events)),
        },
        () =>
          inner.appendMany(
            appends.map((a) => ({ ...a, events: carrying(a.events) })),
            options,
          ),
      ),
  };
}
