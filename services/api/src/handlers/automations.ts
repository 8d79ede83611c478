import { formatTimestamp, newId, TidingsError, type Clock } from "@tidings/core";
import { commandRunner, decideCreate, DomainRejection, loadLive, type Changed } from "@tidings/commands";
import {
  AUTOMATION_NAME_MAX,
  automationDecider,
  automationStream,
  checkGraph,
  definitionOf,
  type AutomationCommand,
  type AutomationDefinition,
  type LiveAutomation,
} from "@tidings/domain";
import type { EventMetadata, EventStore } from "@tidings/eventstore";
import { checkAutomationReferences } from "../lookups/automationReferences.js";

type Deps = { store: EventStore; clock: Clock };

const now = (deps: Deps) => formatTimestamp(deps.clock.now());
const run = commandRunner(automationStream, automationDecider);

export async function findAutomation(store: EventStore, teamId: string, id: string): Promise<LiveAutomation> {
  const automation = await loadLive(store, teamId, id, automationStream, automationDecider);
  if (!automation) throw new TidingsError("not_found", "Automation not found");
  return automation;
}

/** The pure rules first (cheap, and their messages name the step), then what needs the event store. */
async function checked(deps: Deps, teamId: string, definition: AutomationDefinition): Promise<AutomationDefinition> {
  const invalid = checkGraph(definition);
  if (invalid) throw new DomainRejection(invalid);
  return { ...definition, ...(await checkAutomationReferences(deps.store, teamId, definition)) };
}

export async function createAutomation(
  deps: Deps,
  teamId: string,
  definition: AutomationDefinition,
  metadata: EventMetadata,
  duplicatedFrom: string | null = null,
): Promise<Changed> {
  const automationId = newId();
  const command: AutomationCommand = { type: "CreateAutomation", automationId, teamId, definition, duplicatedFrom, now: now(deps) };
  decideCreate(automationDecider, command);
  return run(deps.store, automationId, { ...command, definition: await checked(deps, teamId, definition) }, metadata);
}

/** A graph change is checked against the store again; a name or status change alone is not. */
export async function updateAutomation(
  deps: Deps,
  teamId: string,
  id: string,
  changes: Partial<AutomationDefinition>,
  metadata: EventMetadata,
): Promise<Changed> {
  const automation = await findAutomation(deps.store, teamId, id);
  let next = changes;
  if (changes.steps !== undefined || changes.connections !== undefined) {
    const graph = await checked(deps, teamId, { ...definitionOf(automation), ...changes });
    next = { ...changes, steps: graph.steps, connections: graph.connections };
  }
  return run(deps.store, automation.automationId, { type: "UpdateAutomation", teamId, changes: next, now: now(deps) }, metadata);
}

export async function deleteAutomation(deps: Deps, teamId: string, id: string, metadata: EventMetadata): Promise<Changed> {
  const automation = await findAutomation(deps.store, teamId, id);
  return run(deps.store, automation.automationId, { type: "DeleteAutomation", teamId, now: now(deps) }, metadata);
}

const copySuffix = " (copy)";

/** A disabled copy with the source's latest graph: enabling it is a decision of its own. */
export async function duplicateAutomation(deps: Deps, teamId: string, id: string, metadata: EventMetadata): Promise<Changed> {
  const source = await findAutomation(deps.store, teamId, id);
  const name = source.name.slice(0, AUTOMATION_NAME_MAX - copySuffix.length) + copySuffix;
  return createAutomation(deps, teamId, { ...definitionOf(source), name, status: "disabled" }, metadata, source.automationId);
}
