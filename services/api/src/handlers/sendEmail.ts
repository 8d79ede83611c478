import { DomainRejection } from "@tidings/commands";
import { formatTimestamp, newId } from "@tidings/core";
import { bareAddresses, emailDecider, emailStream, isDomainError } from "@tidings/domain";
import type { EventMetadata, EventStore, Position, StreamAppend } from "@tidings/eventstore";
import type { PreparedEmail } from "./prepareEmail.js";
import type { SuppressionLookup } from "./suppressionLookup.js";

type SendDeps = { store: EventStore; suppressed: SuppressionLookup; clock: { now(): Date } };

export interface SentEmail {
  id: string;
  position: Position;
}

/**
 * Records a prepared email: queued, or scheduled. Recipients on the team's suppression list make it
 * suppressed in the same append. The list is a read model, consulted as a lookup (DESIGN §1): a bounce
 * recorded a moment ago may not be on it yet, and then this one email is attempted once more.
 */
export async function sendEmail(deps: SendDeps, email: PreparedEmail, metadata: EventMetadata): Promise<SentEmail> {
  const decided = await decideEmail(deps, email, metadata);
  const { position } = await deps.store.append(decided.streamId, decided.events, decided.expectedRevision);
  return { id: email.content.emailId, position };
}

/** Records a batch's emails all together or none (one appendMany), so a failure never leaves half a batch sent. */
export async function sendEmails(deps: SendDeps, emails: PreparedEmail[], metadata: EventMetadata): Promise<SentEmail[]> {
  const decided = await Promise.all(emails.map((email) => decideEmail(deps, email, metadata)));
  const results = await deps.store.appendMany(decided);
  return emails.map((email, i) => ({ id: email.content.emailId, position: results[i]!.position }));
}

async function decideEmail(deps: SendDeps, email: PreparedEmail, metadata: EventMetadata): Promise<StreamAppend> {
  const { content, scheduledAt } = email;
  const decided = emailDecider.decide(
    {
      type: "SendEmail",
      content,
      scheduledAt,
      suppressed: await deps.suppressed(content.teamId, [...new Set(bareAddresses([...content.to, ...content.cc, ...content.bcc]))]),
      now: formatTimestamp(deps.clock.now()),
    },
    emailDecider.initialState,
  );
  if (isDomainError(decided)) throw new DomainRejection(decided);
  // The id was generated for this request, so the stream cannot exist yet: there is nothing to read
  // (one round trip saved on the hottest path), and "no_stream" turns an impossible collision into an error.
  return {
    streamId: emailStream(content.emailId),
    events: decided.map((event) => ({ id: newId(), type: event.type, data: event.data, metadata })),
    expectedRevision: "no_stream",
  };
}
