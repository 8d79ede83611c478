import { formatTimestamp, isUuid, newId, TidingsError, type Clock } from "@tidings/core";
import { handleCommand } from "@tidings/commands";
import { topicDecider, topicStream, type LiveTopic, type TopicCommand, type TopicFields, type TopicState, type TopicSubscription } from "@tidings/domain";
import type { EventMetadata, EventStore, Position } from "@tidings/eventstore";
import { loadAggregate } from "./loadAggregate.js";

type Deps = { store: EventStore; clock: Clock };

export interface ChangedTopic {
  id: string;
  position?: Position;
}

const isLive = (state: TopicState, teamId: string): state is LiveTopic => state.status === "active" && state.teamId === teamId;

export async function findTopic(store: EventStore, teamId: string, topicId: string): Promise<LiveTopic> {
  const state = isUuid(topicId) ? await loadAggregate(store, topicStream(topicId), topicDecider) : topicDecider.initialState;
  if (!isLive(state, teamId)) throw new TidingsError("not_found", "Topic not found");
  return state;
}

async function run(deps: Deps, topicId: string, command: TopicCommand, metadata: EventMetadata): Promise<ChangedTopic> {
  const { position } = await handleCommand({ store: deps.store, streamId: topicStream(topicId), decider: topicDecider, command, metadata });
  return { id: topicId, ...(position ? { position } : {}) };
}

export function createTopic(deps: Deps, teamId: string, fields: TopicFields, defaultSubscription: TopicSubscription, metadata: EventMetadata): Promise<ChangedTopic> {
  const topicId = newId();
  return run(deps, topicId, { type: "CreateTopic", topicId, teamId, fields, defaultSubscription, now: formatTimestamp(deps.clock.now()) }, metadata);
}

export async function updateTopic(deps: Deps, teamId: string, topicId: string, changes: Partial<TopicFields>, metadata: EventMetadata): Promise<ChangedTopic> {
  await findTopic(deps.store, teamId, topicId);
  return run(deps, topicId, { type: "UpdateTopic", teamId, changes, now: formatTimestamp(deps.clock.now()) }, metadata);
}

export async function deleteTopic(deps: Deps, teamId: string, topicId: string, metadata: EventMetadata): Promise<ChangedTopic> {
  await findTopic(deps.store, teamId, topicId);
  return run(deps, topicId, { type: "DeleteTopic", teamId, now: formatTimestamp(deps.clock.now()) }, metadata);
}
