import type { TemplateEvent } from "@tidings/domain";
import { holds, type Projection } from "../engine/projection.js";
import { handlersOf, type EventData } from "../engine/typedHandlers.js";
import { teamResourceTable } from "./teamResourceTable.js";

const contentColumns = (data: EventData<TemplateEvent, "TemplateCreated" | "TemplateUpdated">) => ({
  name: data.name,
  alias: data.alias,
  subject: data.subject,
  html: data.html,
  text: data.text,
  from_address: data.from,
  reply_to: data.replyTo,
  variables: data.variables,
});

/**
 * Templates as GET and list show them: the latest version's content. Status and
 * `has_unpublished_versions` are read from `published_version_id` against `current_version_id`, because a
 * handler cannot read the row it updates. Sends do not read this table: they fold the template's stream,
 * which is never behind.
 */
export const templatesProjection = {
  name: "templates",
  version: 1,
  tables: {
    templates: teamResourceTable({
      columns: {
        name: { type: "text" },
        alias: { type: "text", nullable: true },
        subject: { type: "text", nullable: true },
        html: { type: "text" },
        text: { type: "text", nullable: true },
        from_address: { type: "text", nullable: true },
        reply_to: { type: "jsonb", nullable: true, ...holds<string[]>() },
        variables: { type: "jsonb", ...holds<EventData<TemplateEvent, "TemplateCreated">["variables"]>() },
        current_version_id: { type: "uuid" },
        published_version_id: { type: "uuid", nullable: true },
        published_at: { type: "timestamptz", nullable: true },
        created_at: { type: "timestamptz" },
        updated_at: { type: "timestamptz" },
      },
      indexes: { by_alias: "(team_id, alias)" },
    }),
  },
  handlers: handlersOf<TemplateEvent>({
    TemplateCreated(data, context) {
      context.upsert("templates", {
        id: data.templateId,
        team_id: data.teamId,
        ...contentColumns(data),
        current_version_id: data.versionId,
        published_version_id: null,
        published_at: null,
        created_at: data.createdAt,
        updated_at: data.createdAt,
      });
    },
    TemplateUpdated(data, context) {
      context.update(
        "templates",
        { id: data.templateId },
        { ...contentColumns(data), current_version_id: data.versionId, updated_at: data.updatedAt },
      );
    },
    TemplatePublished({ templateId, versionId, publishedAt }, context) {
      context.update(
        "templates",
        { id: templateId },
        { published_version_id: versionId, published_at: publishedAt, updated_at: publishedAt },
      );
    },
    TemplateDeleted(data, context) {
      context.delete("templates", { id: data.templateId });
    },
  }),
} satisfies Projection;
