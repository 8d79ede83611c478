import { DomainError, type Decider } from "../decider.js";
import { createdBefore, isLiveFor, markDeleted, noResource, type LiveResource, type ResourceState } from "../teamResource.js";
import type { TopicSubscription } from "../contact/events.js";
import type { TopicEvent, TopicVisibility } from "./events.js";

export const topicStream = (topicId: string) => `topic-${topicId}`;
export const TOPIC_NAME_MAX = 50;
export const TOPIC_DESCRIPTION_MAX = 200;

export interface TopicFields {
  name: string;
  description: string | null;
  visibility: TopicVisibility;
}

export type TopicCommand =
  | { type: "CreateTopic"; topicId: string; teamId: string; fields: TopicFields; defaultSubscription: TopicSubscription; now: string }
  | { type: "UpdateTopic"; teamId: string; changes: Partial<TopicFields>; now: string }
  | { type: "DeleteTopic"; teamId: string; now: string };

interface TopicRecord extends TopicFields {
  topicId: string;
  teamId: string;
  defaultSubscription: TopicSubscription;
}
export type TopicState = ResourceState<TopicRecord>;
export type LiveTopic = LiveResource<TopicRecord>;

const notFound = () => new DomainError("not_found", "Topic not found");
const invalid = (message: string) => new DomainError("validation_error", message);

/** docs/wire-compatibility.md §6.13: a name of at most 50 characters, a description of at most 200. */
function checkFields(fields: TopicFields): DomainError | undefined {
  if (fields.name.trim() === "") return new DomainError("missing_required_field", "Missing `name` field.");
  if (fields.name.length > TOPIC_NAME_MAX) return invalid(`\`name\` must be at most ${TOPIC_NAME_MAX} characters.`);
  if (fields.description !== null && fields.description.length > TOPIC_DESCRIPTION_MAX)
    return invalid(`\`description\` must be at most ${TOPIC_DESCRIPTION_MAX} characters.`);
  return undefined;
}

export const topicDecider: Decider<TopicCommand, TopicEvent, TopicState> = {
  initialState: noResource,
  evolve(state, event) {
    switch (event.type) {
      case "TopicCreated": {
        const { topicId, teamId, name, description, defaultSubscription, visibility } = event.data;
        return { status: "active", topicId, teamId, name, description, defaultSubscription, visibility };
      }
      case "TopicUpdated": {
        if (state.status === "none") return state;
        const { name, description, visibility } = event.data;
        return { ...state, name, description, visibility };
      }
      case "TopicDeleted":
        return markDeleted(state);
    }
  },
  decide(command, state) {
    if (command.type === "CreateTopic") {
      if (state.status !== "none") return createdBefore(state.teamId === command.teamId && state.name === command.fields.name, "Topic");
      const failed = checkFields(command.fields);
      if (failed) return failed;
      const { topicId, teamId, fields, defaultSubscription, now } = command;
      return [{ type: "TopicCreated", data: { topicId, teamId, ...fields, defaultSubscription, createdAt: now } }];
    }
    if (!isLiveFor(state, command.teamId)) return notFound();
    switch (command.type) {
      case "UpdateTopic": {
        const next: TopicFields = {
          name: command.changes.name ?? state.name,
          description: command.changes.description !== undefined ? command.changes.description : state.description,
          visibility: command.changes.visibility ?? state.visibility,
        };
        const failed = checkFields(next);
        if (failed) return failed;
        if (next.name === state.name && next.description === state.description && next.visibility === state.visibility) return [];
        return [{ type: "TopicUpdated", data: { topicId: state.topicId, ...next, updatedAt: command.now } }];
      }
      case "DeleteTopic":
        return [{ type: "TopicDeleted", data: { topicId: state.topicId, teamId: state.teamId, deletedAt: command.now } }];
    }
  },
};

/** docs/wire-compatibility.md §6.13: the contact's own choice, else the topic's default. */
export const effectiveSubscription = (
  choice: TopicSubscription | undefined,
  topic: { defaultSubscription: TopicSubscription },
): TopicSubscription => choice ?? topic.defaultSubscription;
