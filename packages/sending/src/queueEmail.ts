import { DomainRejection } from "@tidings/commands";
import { deterministicId, newId } from "@tidings/core";
import { emailDecider, emailStream, isDomainError, type EmailContent, type SuppressedAddress } from "@tidings/domain";
import { WrongExpectedRevisionError, type EventMetadata, type EventStore, type StreamAppend } from "@tidings/eventstore";

export interface EmailToQueue {
  content: EmailContent;
  /** Null queues it now; a time schedules it (already checked against `now`). */
  scheduledAt: string | null;
  /** Its recipients on the team's suppression list: the email is recorded suppressed in the same append. */
  suppressed: SuppressedAddress[];
  now: string;
  metadata: EventMetadata;
}

/**
 * How an email's id came about, which decides its event ids and what a second append means:
 * - `fresh`: generated for this request, so the stream cannot exist yet; a collision is an error.
 * - `derived`: derived from what caused it (a broadcast and a contact, an automation run and a step), so a
 *   rerun of that cause names the same email. Its event ids derive from the email id too, and a second
 *   append finds the stream there and appends nothing: N contacts make exactly N emails.
 */
export type EmailIdOrigin = "fresh" | "derived";

/**
 * The one append that turns content into a queued (or scheduled, or suppressed) email, whoever sends it:
 * the api, a broadcast's fan-out, an automation step. Written at "no stream": there is nothing to read
 * first, which saves a round trip on the hottest path.
 */
export function emailQueueAppend(email: EmailToQueue, origin: EmailIdOrigin): StreamAppend {
  const { content, scheduledAt, suppressed, now, metadata } = email;
  const decided = emailDecider.decide({ type: "SendEmail", content, scheduledAt, suppressed, now }, emailDecider.initialState);
  if (isDomainError(decided)) throw new DomainRejection(decided);
  const idOf = origin === "fresh" ? () => newId() : (type: string) => deterministicId(content.emailId, type);
  return {
    streamId: emailStream(content.emailId),
    events: decided.map((event) => ({ id: idOf(event.type), type: event.type, data: event.data, metadata })),
    expectedRevision: "no_stream",
  };
}

/**
 * Appends `emailQueueAppend`. A derived email queued already is left as it is: the store takes an append
 * of the same event ids again as done, and one whose content has changed since (a later run rendered it
 * anew) finds the stream there.
 */
export async function queueEmail(store: EventStore, email: EmailToQueue, origin: EmailIdOrigin): Promise<void> {
  const { streamId, events, expectedRevision } = emailQueueAppend(email, origin);
  try {
    await store.append(streamId, events, expectedRevision);
  } catch (error) {
    if (!(origin === "derived" && error instanceof WrongExpectedRevisionError)) throw error;
  }
}
