import { DomainError, type Decider } from "../decider.js";
import { createdBefore, isLiveFor, markDeleted, noResource, type LiveResource, type ResourceState } from "../teamResource.js";
import type { AutomationDefinition, AutomationEvent } from "./events.js";
import { checkGraph } from "./graph.js";

export const automationStream = (automationId: string) => `automation-${automationId}`;
export const AUTOMATION_NAME_MAX = 255;

export type AutomationCommand =
  | {
      type: "CreateAutomation";
      automationId: string;
      teamId: string;
      definition: AutomationDefinition;
      duplicatedFrom: string | null;
      now: string;
    }
  | { type: "UpdateAutomation"; teamId: string; changes: Partial<AutomationDefinition>; now: string }
  | { type: "DeleteAutomation"; teamId: string; now: string };

interface AutomationRecord extends Omit<AutomationDefinition, "status"> {
  /** The automation's own `enabled | disabled`; `status` is the aggregate's. */
  automationStatus: AutomationDefinition["status"];
  automationId: string;
  teamId: string;
  version: number;
  createdAt: string;
  updatedAt: string | null;
}

export type AutomationState = ResourceState<AutomationRecord>;
export type LiveAutomation = LiveResource<AutomationRecord>;

const notFound = () => new DomainError("not_found", "Automation not found");

function checkDefinition(definition: AutomationDefinition): DomainError | undefined {
  if (definition.name.trim().length === 0 || definition.name.length > AUTOMATION_NAME_MAX)
    return new DomainError("validation_error", `The \`name\` field must be 1 to ${AUTOMATION_NAME_MAX} characters.`);
  return checkGraph(definition);
}

/** Field by field, since jsonb may give a stored config back with its keys in another order. */
const canonical = (value: unknown): unknown =>
  Array.isArray(value)
    ? value.map(canonical)
    : value !== null && typeof value === "object"
      ? Object.fromEntries(
          Object.entries(value as Record<string, unknown>)
            .sort(([a], [b]) => (a < b ? -1 : 1))
            .map(([k, v]) => [k, canonical(v)]),
        )
      : value;
const sameGraph = (a: AutomationDefinition, b: AutomationDefinition) =>
  JSON.stringify(canonical([a.steps, a.connections])) === JSON.stringify(canonical([b.steps, b.connections]));

export const definitionOf = (state: LiveAutomation): AutomationDefinition => ({
  name: state.name,
  status: state.automationStatus,
  steps: state.steps,
  connections: state.connections,
});

export const automationDecider: Decider<AutomationCommand, AutomationEvent, AutomationState> = {
  initialState: noResource,
  evolve(state, event) {
    switch (event.type) {
      case "AutomationCreated": {
        const { automationId, teamId, name, status, steps, connections, createdAt } = event.data;
        return {
          status: "active",
          automationStatus: status,
          automationId,
          teamId,
          name,
          steps,
          connections,
          version: 1,
          createdAt,
          updatedAt: null,
        };
      }
      case "AutomationUpdated": {
        if (state.status === "none") return state;
        const { name, status, steps, connections, version, updatedAt } = event.data;
        return { ...state, name, automationStatus: status, steps, connections, version, updatedAt };
      }
      case "AutomationDeleted":
        return markDeleted(state);
    }
  },
  decide(command, state) {
    switch (command.type) {
      case "CreateAutomation": {
        if (state.status !== "none") return createdBefore(state.teamId === command.teamId, "Automation");
        const invalid = checkDefinition(command.definition);
        if (invalid) return invalid;
        const { automationId, teamId, definition, duplicatedFrom, now } = command;
        return [{ type: "AutomationCreated", data: { automationId, teamId, ...definition, duplicatedFrom, createdAt: now } }];
      }
      case "UpdateAutomation": {
        if (!isLiveFor(state, command.teamId)) return notFound();
        const current = definitionOf(state);
        const next: AutomationDefinition = { ...current, ...command.changes };
        const invalid = checkDefinition(next);
        if (invalid) return invalid;
        const graphChanged = !sameGraph(current, next);
        if (!graphChanged && next.name === current.name && next.status === current.status) return [];
        const version = graphChanged ? state.version + 1 : state.version;
        return [
          {
            type: "AutomationUpdated",
            data: { automationId: state.automationId, teamId: state.teamId, ...next, version, updatedAt: command.now },
          },
        ];
      }
      case "DeleteAutomation":
        if (!isLiveFor(state, command.teamId)) return notFound();
        return [{ type: "AutomationDeleted", data: { automationId: state.automationId, teamId: state.teamId, deletedAt: command.now } }];
    }
  },
};
