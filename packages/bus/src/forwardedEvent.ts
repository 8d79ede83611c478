import { formatPosition, parsePosition, streamCategory, type RecordedEvent } from "@tidings/eventstore";

/** The body the forwarder publishes for each recorded event: JSON, with bigints as strings. */
export interface ForwardedEvent {
  id: string;
  type: string;
  streamId: string;
  /** The stream revision, as a decimal string. */
  revision: string;
  /** The `$all` position, as `formatPosition` writes it. */
  position: string;
  data: unknown;
  metadata: RecordedEvent["metadata"];
  /** ISO 8601. */
  createdAt: string;
}

/** The subject the forwarder publishes an event to (`eventSubject`), in the lane its metadata names. */
export function forwardedEventSubject(event: Pick<RecordedEvent, "streamId" | "type" | "metadata">): string {
  const { lane } = event.metadata;
  return eventSubject(streamCategory(event.streamId), event.type, typeof lane === "string" && lane !== "" ? lane : undefined);
}

/**
 * `events.<category>.<Type>` (docs/architecture.md §5): where the forwarder publishes each event, and what a saga's
 * consumer filters on (`consumeEvents`), with a NATS wildcard (`>` or `*`) for every type of the category.
 * One function for both sides, so a subscription cannot name a subject nothing is published to.
 *
 * An event whose appender put it in a `lane` (its metadata's `lane`, docs/events.md) goes to
 * `events.<category>.<Type>.<lane>`: a consumer of the type alone does not see it, so work of one kind (a
 * broadcast's emails) has a consumer of its own and never queues ahead of the rest (a transactional email).
 * `events.<category>.>` still takes every lane; `events.<category>.*` only the events in none.
 */
export function eventSubject(category: string, type: string, lane?: string): string {
  const subject = `events.${subjectToken(category)}.${type === ">" || type === "*" ? type : subjectToken(type)}`;
  return lane === undefined ? subject : `${subject}.${subjectToken(lane)}`;
}

// Subject tokens cannot hold separators, wildcards or spaces; stream categories and event types normally have none.
const subjectToken = (text: string) => text.replace(/[.*>\s]/g, "_") || "_";

/**
 * The headers the forwarder publishes an event with: the W3C trace context its append recorded in its
 * metadata (docs/events.md, Metadata), so that its handling continues the trace of the request behind it.
 */
export function forwardedEventHeaders(event: Pick<RecordedEvent, "metadata">): Record<string, string> | undefined {
  const { traceparent } = event.metadata;
  return typeof traceparent === "string" ? { traceparent } : undefined;
}

export function toForwardedEvent(event: RecordedEvent): ForwardedEvent {
  return {
    id: event.id,
    type: event.type,
    streamId: event.streamId,
    revision: event.revision.toString(),
    position: formatPosition(event.position),
    data: event.data,
    metadata: event.metadata,
    createdAt: event.createdAt.toISOString(),
  };
}

/**
 * What a saga gets back from a bus message's data (`consumeEvents` types it by its subject). Sealed data
 * comes as a view that opens on the first read of a sealed value (docs/privacy.md): it is carried over
 * as it is, since most sagas skip most of the events they consume.
 */
export function fromForwardedEvent(body: ForwardedEvent): RecordedEvent {
  return {
    id: body.id,
    type: body.type,
    streamId: body.streamId,
    revision: BigInt(body.revision),
    position: parsePosition(body.position),
    data: body.data,
    metadata: body.metadata,
    createdAt: new Date(body.createdAt),
  };
}
