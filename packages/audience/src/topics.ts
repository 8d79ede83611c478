import { formatTimestamp, newId, orNotFound, type Clock } from "@tidings/core";
import { commandRunner, loadLive, type Changed } from "@tidings/commands";
import { topicDecider, topicStream, type LiveTopic, type TopicFields, type TopicSubscription } from "@tidings/domain";
import type { EventMetadata, EventStore } from "@tidings/eventstore";

type Deps = { store: EventStore; clock: Clock };

const run = commandRunner(topicStream, topicDecider);

export const findTopic = (store: EventStore, teamId: string, topicId: string): Promise<LiveTopic> =>
  orNotFound(loadLive(store, teamId, topicId, topicStream, topicDecider), "Topic not found");

export function createTopic(
  deps: Deps,
  teamId: string,
  fields: TopicFields,
  defaultSubscription: TopicSubscription,
  metadata: EventMetadata,
  /** Given by a caller that must create the same resource when it runs again (a resumed migration). */
  topicId: string = newId(),
): Promise<Changed> {
  return run(
    deps.store,
    topicId,
    { type: "CreateTopic", topicId, teamId, fields, defaultSubscription, now: formatTimestamp(deps.clock.now()) },
    metadata,
  );
}

export async function updateTopic(
  deps: Deps,
  teamId: string,
  topicId: string,
  changes: Partial<TopicFields>,
  metadata: EventMetadata,
): Promise<Changed> {
  await findTopic(deps.store, teamId, topicId);
  return run(deps.store, topicId, { type: "UpdateTopic", teamId, changes, now: formatTimestamp(deps.clock.now()) }, metadata);
}

export async function deleteTopic(deps: Deps, teamId: string, topicId: string, metadata: EventMetadata): Promise<Changed> {
  await findTopic(deps.store, teamId, topicId);
  return run(deps.store, topicId, { type: "DeleteTopic", teamId, now: formatTimestamp(deps.clock.now()) }, metadata);
}
