import { formatTimestamp, isUuid, newId, TidingsError, type Clock } from "@tidings/core";
import { DomainRejection, handleCommand, loadState } from "@tidings/commands";
import {
  AUTOMATION_NAME_MAX,
  automationDecider,
  automationStream,
  checkGraph,
  definitionOf,
  isDomainError,
  type AutomationCommand,
  type AutomationDefinition,
  type LiveAutomation,
} from "@tidings/domain";
import type { EventMetadata, EventStore, Position } from "@tidings/eventstore";
import { checkAutomationReferences } from "../lookups/automationReferences.js";

type Deps = { store: EventStore; clock: Clock };

export interface ChangedAutomation {
  id: string;
  position?: Position;
}

const outcome = (id: string, position: Position | undefined): ChangedAutomation => ({ id, ...(position ? { position } : {}) });
const now = (deps: Deps) => formatTimestamp(deps.clock.now());
const run = (deps: Deps, id: string, command: AutomationCommand, metadata: EventMetadata) =>
  handleCommand({ store: deps.store, streamId: automationStream(id), decider: automationDecider, command, metadata });

export async function findAutomation(store: EventStore, teamId: string, id: string): Promise<LiveAutomation> {
  const state = isUuid(id) ? await loadState(store, automationStream(id), automationDecider) : automationDecider.initialState;
  if (state.status !== "active" || state.teamId !== teamId) throw new TidingsError("not_found", "Automation not found");
  return state as LiveAutomation;
}

/** The pure rules first (cheap, and their messages name the step), then what needs the event store. */
async function checked(deps: Deps, teamId: string, definition: AutomationDefinition): Promise<AutomationDefinition> {
  const invalid = checkGraph(definition);
  if (invalid) throw new DomainRejection(invalid);
  return { ...definition, ...(await checkAutomationReferences(deps.store, teamId, definition)) };
}

export async function createAutomation(deps: Deps, teamId: string, definition: AutomationDefinition, metadata: EventMetadata, duplicatedFrom: string | null = null): Promise<ChangedAutomation> {
  const automationId = newId();
  const command: AutomationCommand = { type: "CreateAutomation", automationId, teamId, definition, duplicatedFrom, now: now(deps) };
  const verdict = automationDecider.decide(command, automationDecider.initialState);
  if (isDomainError(verdict)) throw new DomainRejection(verdict);
  const { position } = await run(deps, automationId, { ...command, definition: await checked(deps, teamId, definition) }, metadata);
  return outcome(automationId, position);
}

/** A graph change is checked against the store again; a name or status change alone is not. */
export async function updateAutomation(deps: Deps, teamId: string, id: string, changes: Partial<AutomationDefinition>, metadata: EventMetadata): Promise<ChangedAutomation> {
  const automation = await findAutomation(deps.store, teamId, id);
  let next = changes;
  if (changes.steps !== undefined || changes.connections !== undefined) {
    const graph = await checked(deps, teamId, { ...definitionOf(automation), ...changes });
    next = { ...changes, steps: graph.steps, connections: graph.connections };
  }
  const { position } = await run(deps, automation.automationId, { type: "UpdateAutomation", teamId, changes: next, now: now(deps) }, metadata);
  return outcome(automation.automationId, position);
}

export async function deleteAutomation(deps: Deps, teamId: string, id: string, metadata: EventMetadata): Promise<ChangedAutomation> {
  const automation = await findAutomation(deps.store, teamId, id);
  const { position } = await run(deps, automation.automationId, { type: "DeleteAutomation", teamId, now: now(deps) }, metadata);
  return outcome(automation.automationId, position);
}

const copySuffix = " (copy)";

/** A disabled copy with the source's latest graph: enabling it is a decision of its own. */
export async function duplicateAutomation(deps: Deps, teamId: string, id: string, metadata: EventMetadata): Promise<ChangedAutomation> {
  const source = await findAutomation(deps.store, teamId, id);
  const name = source.name.slice(0, AUTOMATION_NAME_MAX - copySuffix.length) + copySuffix;
  return createAutomation(deps, teamId, { ...definitionOf(source), name, status: "disabled" }, metadata, source.automationId);
}
