import { formatTimestamp, type Clock } from "@tidings/core";
import { apiKeyDecider, apiKeyStream } from "@tidings/domain";
import { commandRunner, type Changed } from "@tidings/commands";
import type { EventMetadata, EventStore } from "@tidings/eventstore";

type Deps = { store: EventStore; clock: Clock };

const run = commandRunner(apiKeyStream, apiKeyDecider);

/** A key of another team is not found, like a key that never existed: the decider checks the team. */
export function renameApiKey(deps: Deps, teamId: string, apiKeyId: string, name: string, metadata: EventMetadata): Promise<Changed> {
  return run(deps.store, apiKeyId, { type: "RenameApiKey", teamId, name }, metadata);
}

export function deleteApiKey(deps: Deps, teamId: string, apiKeyId: string, metadata: EventMetadata): Promise<Changed> {
  return run(deps.store, apiKeyId, { type: "DeleteApiKey", teamId, now: formatTimestamp(deps.clock.now()) }, metadata);
}
