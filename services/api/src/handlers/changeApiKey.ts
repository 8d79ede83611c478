import { formatTimestamp, type Clock } from "@tidings/core";
import { apiKeyDecider, apiKeyStream } from "@tidings/domain";
import { handleCommand } from "@tidings/commands";
import type { EventMetadata, EventStore, Position } from "@tidings/eventstore";

type Deps = { store: EventStore; clock: Clock };

/** A key of another team is not found, like a key that never existed: the decider checks the team. */
export async function renameApiKey(
  deps: Deps,
  teamId: string,
  apiKeyId: string,
  name: string,
  metadata: EventMetadata,
): Promise<Position | undefined> {
  const { position } = await handleCommand({
    store: deps.store,
    streamId: apiKeyStream(apiKeyId),
    decider: apiKeyDecider,
    command: { type: "RenameApiKey", teamId, name },
    metadata,
  });
  return position;
}

export async function deleteApiKey(deps: Deps, teamId: string, apiKeyId: string, metadata: EventMetadata): Promise<Position | undefined> {
  const { position } = await handleCommand({
    store: deps.store,
    streamId: apiKeyStream(apiKeyId),
    decider: apiKeyDecider,
    command: { type: "DeleteApiKey", teamId, now: formatTimestamp(deps.clock.now()) },
    metadata,
  });
  return position;
}
