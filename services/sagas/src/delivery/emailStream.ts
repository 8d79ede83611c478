import { parseTimestamp } from "@tidings/core";
import { emailDecider, emailStream, fold, type EmailContent, type EmailEvent, type EmailState } from "@tidings/domain";
import type { EventStore } from "@tidings/eventstore";
import { continuing, type EventChain } from "../sagaMetadata.js";

export interface LoadedEmail {
  state: EmailState;
  /** What to send: the data of the stream's EmailQueued, else of its EmailScheduled (without `scheduledAt`). */
  content: EmailContent | null;
  /** When the first deferral was recorded: the 24 h retry window counts from there. */
  firstDelayedAt: Date | null;
  /** The revision read, for an append that expects nothing else to have been written since. */
  revision: bigint | "no_stream";
  /** The chain what the saga appends next continues: the email's request, caused by the stream's last event; null with no stream. */
  chain: EventChain | null;
  /** The trace the stream's last event was appended in, which a retry continues (docs/operations.md, "Traces"). */
  traceparent?: string;
}

/** The email as its stream says now; sagas decide from this, never from a read model (docs/architecture.md §1). */
export async function loadEmail(store: EventStore, emailId: string): Promise<LoadedEmail> {
  const recorded = await store.readStream(emailStream(emailId));
  const events = recorded.map((e) => ({ type: e.type, data: e.data }) as EmailEvent);
  let content: EmailContent | null = null;
  let firstDelayedAt: Date | null = null;
  for (const event of events) {
    if (event.type === "EmailQueued") content = event.data;
    else if (event.type === "EmailDeliveryDelayed") firstDelayedAt ??= instantOf(event.data.delayedAt);
    else if (event.type === "EmailScheduled") {
      const { scheduledAt: _, ...rest } = event.data;
      content ??= rest;
    }
  }
  const revision = recorded.length === 0 ? "no_stream" : recorded[recorded.length - 1]!.revision;
  const chain = recorded.length === 0 ? null : continuing(recorded);
  const traceparent = recorded.at(-1)?.metadata.traceparent;
  return { state: fold(emailDecider, events), content, firstDelayedAt, revision, chain, traceparent };
}

/** Email events carry times in the wire format (`YYYY-MM-DD HH:MM:SS.ffffff+00`); ISO 8601 is read too. */
export function instantOf(text: string): Date {
  return parseTimestamp(text) ?? new Date(text);
}
