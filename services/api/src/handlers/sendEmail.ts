import { DomainRejection } from "@tidings/commands";
import { formatTimestamp, newId } from "@tidings/core";
import { bareAddresses, emailDecider, emailStream, isDomainError, type EmailContent } from "@tidings/domain";
import type { EventMetadata, EventStore, Position } from "@tidings/eventstore";
import type { PreparedEmail } from "./prepareEmail.js";
import type { SuppressionLookup } from "./suppressionLookup.js";

export interface SentEmail {
  id: string;
  position: Position;
}

/**
 * Records a prepared email: queued, or scheduled. Recipients on the team's suppression list make it
 * suppressed in the same append. The list is a read model, consulted as a lookup (DESIGN §1): a bounce
 * recorded a moment ago may not be on it yet, and then this one email is attempted once more.
 */
export async function sendEmail(
  deps: { store: EventStore; suppressed: SuppressionLookup; clock: { now(): Date } },
  email: PreparedEmail,
  metadata: EventMetadata,
): Promise<SentEmail> {
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
  const { position } = await deps.store.append(
    emailStream(content.emailId),
    decided.map((event) => ({ id: newId(), type: event.type, data: event.data, metadata })),
    "no_stream",
  );
  return { id: content.emailId, position };
}
