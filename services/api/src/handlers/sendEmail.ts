import { formatTimestamp } from "@tidings/core";
import type { EventMetadata, EventStore, Position, StreamAppend } from "@tidings/eventstore";
import { emailQueueAppend, type EmailIdOrigin } from "@tidings/sending";
import type { PreparedEmail } from "./prepareEmail.js";
import type { SuppressedRecipients } from "@tidings/sending";
import type { SendingPauseCheck } from "../lookups/sendingPauses.js";

type SendDeps = { store: EventStore; suppressed: SuppressedRecipients; paused: SendingPauseCheck; clock: { now(): Date } };

export interface SentEmail {
  id: string;
  position: Position;
}

/**
 * Records a prepared email: queued, or scheduled. Recipients on the team's suppression list make it
 * suppressed in the same append. The list is a read model, consulted as a lookup (docs/architecture.md §1): a bounce
 * recorded a moment ago may not be on it yet, and then this one email is attempted once more. A team or
 * domain paused for its reputation is refused (`sending_paused`), and nothing is recorded.
 */
export async function sendEmail(
  deps: SendDeps,
  email: PreparedEmail,
  metadata: EventMetadata,
  origin: EmailIdOrigin = "fresh",
): Promise<SentEmail> {
  const { streamId, events, expectedRevision } = await queueAppend(deps, email, metadata, origin);
  const { position } = await deps.store.append(streamId, events, expectedRevision);
  return { id: email.content.emailId, position };
}

/** Records a batch's emails all together or none (one appendMany), so a failure never leaves half a batch sent. */
export async function sendEmails(
  deps: SendDeps,
  emails: PreparedEmail[],
  metadata: EventMetadata,
  origin: EmailIdOrigin = "fresh",
): Promise<SentEmail[]> {
  const appends = await Promise.all(emails.map((email) => queueAppend(deps, email, metadata, origin)));
  const results = await deps.store.appendMany(appends);
  return emails.map((email, i) => ({ id: email.content.emailId, position: results[i]!.position }));
}

/**
 * `origin`: "fresh" when the id was generated for this request (`prepareEmail`); "derived" when it comes
 * from the request's Idempotency-Key (`idempotentId`), where a run taking over from one that recorded the
 * email already appends the same event ids, and the store answers that as a repeat.
 */
async function queueAppend(
  deps: SendDeps,
  { content, scheduledAt }: PreparedEmail,
  metadata: EventMetadata,
  origin: EmailIdOrigin,
): Promise<StreamAppend> {
  await deps.paused(content.teamId, content.domainId);
  const suppressed = await deps.suppressed(content.teamId, [...content.to, ...content.cc, ...content.bcc]);
  return emailQueueAppend({ content, scheduledAt, suppressed, now: formatTimestamp(deps.clock.now()), metadata }, origin);
}
