import { handleCommand } from "@tidings/commands";
import { formatTimestamp, TidingsError, type Clock } from "@tidings/core";
import { emailDecider, emailStream, isDomainError, parseScheduledAt } from "@tidings/domain";
import type { EventMetadata, EventStore, Position } from "@tidings/eventstore";

type Deps = { store: EventStore; clock: Clock };

/** `PATCH /emails/:id`: a new time for an email that is still scheduled. Another team's email is not found. */
export async function rescheduleEmail(
  deps: Deps,
  teamId: string,
  emailId: string,
  scheduledAtText: string,
  metadata: EventMetadata,
): Promise<Position | undefined> {
  const now = deps.clock.now();
  const scheduledAt = parseScheduledAt(scheduledAtText, now);
  if (isDomainError(scheduledAt)) throw new TidingsError(scheduledAt.name, scheduledAt.message);
  const { position } = await handleCommand({
    store: deps.store,
    streamId: emailStream(emailId),
    decider: emailDecider,
    command: { type: "RescheduleEmail", teamId, scheduledAt: formatTimestamp(scheduledAt), now: formatTimestamp(now) },
    metadata,
  });
  return position;
}

export async function cancelEmail(deps: Deps, teamId: string, emailId: string, metadata: EventMetadata): Promise<Position | undefined> {
  const { position } = await handleCommand({
    store: deps.store,
    streamId: emailStream(emailId),
    decider: emailDecider,
    command: { type: "CancelEmail", teamId, now: formatTimestamp(deps.clock.now()) },
    metadata,
  });
  return position;
}
