import { commandNow, commandRunner, type Changed, type CommandDeps } from "@tidings/commands";
import { formatTimestamp, TidingsError } from "@tidings/core";
import { emailDecider, emailStream, isDomainError, parseScheduledAt } from "@tidings/domain";
import type { EventMetadata } from "@tidings/eventstore";

const run = commandRunner(emailStream, emailDecider);

/** `PATCH /emails/:id`: a new time for an email that is still scheduled. Another team's email is not found. */
export function rescheduleEmail(
  deps: CommandDeps,
  teamId: string,
  emailId: string,
  scheduledAtText: string,
  metadata: EventMetadata,
): Promise<Changed> {
  const now = deps.clock.now();
  const scheduledAt = parseScheduledAt(scheduledAtText, now);
  if (isDomainError(scheduledAt)) throw new TidingsError(scheduledAt.name, scheduledAt.message);
  const command = { type: "RescheduleEmail" as const, teamId, scheduledAt: formatTimestamp(scheduledAt), now: formatTimestamp(now) };
  return run(deps.store, emailId, command, metadata);
}

export function cancelEmail(deps: CommandDeps, teamId: string, emailId: string, metadata: EventMetadata): Promise<Changed> {
  return run(deps.store, emailId, { type: "CancelEmail", teamId, now: commandNow(deps) }, metadata);
}
