import { deterministicId } from "@tidings/core";
import { emailDecider, emailStream, isDomainError, type EmailCommand } from "@tidings/domain";
import { WrongExpectedRevisionError, type EventMetadata, type EventStore } from "@tidings/eventstore";
import { DomainRejection, handleCommand } from "@tidings/commands";
import type { LoadedEmail } from "./emailStream.js";
import { untilRecorded } from "../untilRecorded.js";

/**
 * Records what the transport said as an `immediate` append, because this runs inside the window a crash
 * turns into a duplicate send: it is never queued behind other appends' group commit, and goes at once or
 * with the other outcomes answered while two are on the wire (docs/architecture.md, "The one inherent
 * duplicate"). The stream was read just before the send, and only the delivery saga writes to a queued
 * email, so the revision read is normally still the stream's; when it is not, handleCommand reads and
 * decides again. Event ids derive from the email and the revision they follow: a retried append of
 * the same outcome is recognised by the store as the same append.
 *
 * While the store refuses the append, it is tried again (untilRecorded); the caller holds its sending
 * slot meanwhile, so no other email goes out that could not be recorded either.
 */
export async function recordOutcome(
  store: EventStore,
  loaded: LoadedEmail & { emailId: string },
  command: EmailCommand,
  metadata: EventMetadata,
  stopping?: AbortSignal,
): Promise<void> {
  const streamId = emailStream(loaded.emailId);
  const decided = emailDecider.decide(command, loaded.state);
  if (isDomainError(decided)) throw new DomainRejection(decided);
  if (decided.length === 0) return;
  const after = String(loaded.revision);
  const record = async () => {
    try {
      await store.append(
        streamId,
        decided.map((event, i) => ({
          id: deterministicId("email-outcome", loaded.emailId, after, String(i)),
          type: event.type,
          data: event.data,
          metadata,
        })),
        loaded.revision,
        { immediate: true },
      );
    } catch (error) {
      if (!(error instanceof WrongExpectedRevisionError)) throw error;
      await handleCommand({ store, streamId, decider: emailDecider, command, metadata });
    }
  };
  await untilRecorded(record, stopping);
}
