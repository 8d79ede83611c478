import { z } from "zod";
import { formatTimestamp, TidingsError } from "@tidings/core";
import type { EventStore, RecordedEvent } from "@tidings/eventstore";
import { defaultPageSize, type ListPage, type PageRequest } from "../pagination.js";
import type { AuditRef } from "../queries/audit.js";
import { wireTimestampText } from "../wireTimestamp.js";

/** One event as the audit API shows it: where it is, when, who caused it, and what it recorded. */
export const auditEventSchema = z.object({
  id: z.uuid().describe("The event's id; `after` and `before` take it."),
  stream: z.string(),
  revision: z.number().int().describe("0-based, within the stream."),
  type: z.string(),
  occurred_at: z.string().nullable().describe("When the writer says it happened (metadata), or null."),
  created_at: wireTimestampText().describe("When the event store recorded it."),
  actor: z.string().nullable(),
  request_id: z.string().nullable(),
  correlation_id: z.string().nullable(),
  causation_id: z.string().nullable(),
  data: z.unknown().describe("The event's payload; null when its stream was deleted (an erased contact)."),
});
export type AuditEvent = z.infer<typeof auditEventSchema>;

const text = (value: unknown) => (typeof value === "string" ? value : null);

export function auditEvent(event: RecordedEvent): AuditEvent {
  const { metadata } = event;
  return {
    id: event.id,
    stream: event.streamId,
    revision: Number(event.revision),
    type: event.type,
    occurred_at: text(metadata.occurredAt),
    created_at: formatTimestamp(event.createdAt),
    actor: text(metadata.actor),
    request_id: text(metadata.requestId),
    correlation_id: text(metadata.correlationId),
    causation_id: text(metadata.causationId),
    data: event.data ?? null,
  };
}

/**
 * The event an index row points at, read from its stream. A stream deleted since (an erased contact's)
 * no longer has it: the index still says that it was there, with nothing of what it held.
 */
export async function auditEventOf(store: EventStore, ref: AuditRef): Promise<AuditEvent> {
  const [event] = await store.readStream(ref.stream_id, { fromRevision: BigInt(ref.revision), maxCount: 1 });
  if (event?.id === ref.event_id) return auditEvent(event);
  return {
    id: ref.event_id,
    stream: ref.stream_id,
    revision: Number(ref.revision),
    type: ref.type,
    occurred_at: ref.occurred_at ? formatTimestamp(ref.occurred_at) : null,
    created_at: formatTimestamp(ref.created_at),
    actor: null,
    request_id: null,
    correlation_id: null,
    causation_id: null,
    data: null,
  };
}

/**
 * A page of a stream's events, newest first, with the cursors of every list (docs/wire-compatibility.md §2.1).
 * A stream is read whole from the store, so the page is cut in memory.
 */
export function pageOfEvents(events: readonly RecordedEvent[], page: PageRequest): ListPage<AuditEvent> {
  const newestFirst = [...events].reverse();
  const limit = page.limit ?? defaultPageSize;
  const cursor = page.before ?? page.after;
  let from = 0;
  let to = newestFirst.length;
  if (cursor !== undefined) {
    const at = newestFirst.findIndex((e) => e.id === cursor.toLowerCase());
    if (at < 0) throw new TidingsError("validation_error", `\`${page.before ? "before" : "after"}\` does not name an item of this list.`);
    if (page.before !== undefined) to = at;
    else from = at + 1;
  }
  const backwards = page.before !== undefined;
  const window = backwards ? newestFirst.slice(Math.max(from, to - limit), to) : newestFirst.slice(from, from + limit);
  const hasMore = backwards ? to - limit > from : from + limit < to;
  return { object: "list", has_more: hasMore, data: window.map(auditEvent) };
}
