import type { TopicEvent, TopicSubscription, TopicVisibility } from "@tidings/domain";
import { holds, type Projection } from "../engine/projection.js";
import { eventDataOf } from "../engine/eventData.js";
import { teamResourceTable } from "./teamResourceTable.js";

const dataOf = eventDataOf<TopicEvent>();

/** Topics (reference §6.13). A contact's own choices are in `contact_topics` (the contacts projection). */
export const topicsProjection = {
  name: "topics",
  version: 1,
  tables: {
    topics: teamResourceTable({
      name: { type: "text" },
      description: { type: "text", nullable: true },
      default_subscription: { type: "text", ...holds<TopicSubscription>() },
      visibility: { type: "text", ...holds<TopicVisibility>() },
      created_at: { type: "timestamptz" },
    }),
  },
  handlers: {
    TopicCreated(event, context) {
      const data = dataOf<"TopicCreated">(event);
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
    TopicUpdated(event, context) {
      const data = dataOf<"TopicUpdated">(event);
      context.update("topics", { id: data.topicId }, { name: data.name, description: data.description, visibility: data.visibility });
    },
    TopicDeleted(event, context) {
      context.delete("topics", { id: dataOf<"TopicDeleted">(event).topicId });
    },
  },
} satisfies Projection;
