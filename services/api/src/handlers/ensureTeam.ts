import { deterministicId, formatTimestamp, type Clock } from "@tidings/core";
import { teamDecider, teamStream } from "@tidings/domain";
import { handleCommand } from "@tidings/commands";
import type { EventMetadata, EventStore, Position } from "@tidings/eventstore";

/**
 * A team's id derives from its name, so a name names one team across every process without a lookup or a
 * reservation: creating it twice, even at once from two processes, creates it once.
 */
export const teamIdForName = (name: string) => deterministicId("team-name", name);

export async function ensureTeam(
  deps: { store: EventStore; clock: Clock },
  name: string,
  metadata: EventMetadata,
): Promise<{ teamId: string; position?: Position }> {
  const teamId = teamIdForName(name);
  const { position } = await handleCommand({
    store: deps.store,
    streamId: teamStream(teamId),
    decider: teamDecider,
    command: { type: "CreateTeam", teamId, name, now: formatTimestamp(deps.clock.now()) },
    metadata: { ...metadata, teamId },
  });
  return { teamId, ...(position ? { position } : {}) };
}
