import type { TopicEvent, TopicSubscription, TopicVisibility } from "@tidings/domain";
import { holds, type Projection } from "../engine/projection.js";
import { handlersOf } from "../engine/typedHandlers.js";
import { teamResourceTable } from "./teamResourceTable.js";

/** Topics (docs/wire-compatibility.md §6.13). A contact's own choices are in `contact_topics` (the contacts projection). */
export const topicsProjection = {
  name: "topics",
  version: 1,
  tables: {
    topics: teamResourceTable({
      columns: {
        name: { type: "text" },
        description: { type: "text", nullable: true },
        default_subscription: { type: "text", ...holds<TopicSubscription>() },
        visibility: { type: "text", ...holds<TopicVisibility>() },
        created_at: { type: "timestamptz" },
      },
    }),
  },
  handlers: handlersOf<TopicEvent>({
    TopicCreated(data, context) {
      context.upsert("topics", {
        id: data.topicId,
        team_id: data.teamId,
        name: data.name,
        description: data.description,
        default_subscription: data.defaultSubscription,
        visibility: data.visibility,
        created_at: data.createdAt,
      });
    },
    TopicUpdated(data, context) {
      context.update("topics", { id: data.topicId }, { name: data.name, description: data.description, visibility: data.visibility });
    },
    TopicDeleted(data, context) {
      context.delete("topics", { id: data.topicId });
    },
  }),
} satisfies Projection;
