import { triggerEventName, type AutomationEvent, type AutomationStatus } from "@tidings/domain";
import { holds, type Projection } from "../engine/projection.js";
import { handlersOf, type EventData } from "../engine/typedHandlers.js";
import { teamResourceTable } from "./teamResourceTable.js";

const definitionColumns = (data: EventData<AutomationEvent, "AutomationCreated" | "AutomationUpdated">) => ({
  name: data.name,
  status: data.status,
  steps: data.steps,
  connections: data.connections,
  trigger_event: triggerEventName(data) ?? "",
});

/**
 * Automations as GET and list show them, and the runner's index from a trigger's event name to the enabled
 * automations it starts (`by_trigger`): a lookup only; the runner then folds the automation's stream.
 */
export const automationsProjection = {
  name: "automations",
  version: 1,
  tables: {
    automations: teamResourceTable({
      columns: {
        name: { type: "text" },
        status: { type: "text", ...holds<AutomationStatus>() },
        steps: { type: "jsonb", ...holds<EventData<AutomationEvent, "AutomationCreated">["steps"]>() },
        connections: { type: "jsonb", ...holds<EventData<AutomationEvent, "AutomationCreated">["connections"]>() },
        trigger_event: { type: "text" },
        version: { type: "integer" },
        created_at: { type: "timestamptz" },
        updated_at: { type: "timestamptz", nullable: true },
      },
      indexes: { by_trigger: "(team_id, trigger_event, status)" },
    }),
  },
  handlers: handlersOf<AutomationEvent>({
    AutomationCreated(data, context) {
      context.upsert("automations", {
        id: data.automationId,
        team_id: data.teamId,
        ...definitionColumns(data),
        version: 1,
        created_at: data.createdAt,
        updated_at: null,
      });
    },
    AutomationUpdated(data, context) {
      context.update(
        "automations",
        { id: data.automationId },
        { ...definitionColumns(data), version: data.version, updated_at: data.updatedAt },
      );
    },
    AutomationDeleted(data, context) {
      context.delete("automations", { id: data.automationId });
    },
  }),
} satisfies Projection;
