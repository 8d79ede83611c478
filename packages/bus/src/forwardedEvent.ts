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

/** `events.<category>.<Type>`, the subject sagas filter on (DESIGN §5). */
export function forwardedEventSubject(event: Pick<RecordedEvent, "streamId" | "type">): string {
  return `events.${subjectToken(streamCategory(event.streamId))}.${subjectToken(event.type)}`;
}

// Subject tokens cannot hold separators, wildcards or spaces; stream categories and event types normally have none.
const subjectToken = (text: string) => text.replace(/[.*>\s]/g, "_") || "_";

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

/** What a saga gets back from a bus message's data. */
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
