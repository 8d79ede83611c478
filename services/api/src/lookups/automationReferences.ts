import { TidingsError } from "@tidings/core";
import { findSegment } from "@tidings/audience";
import { eventNamesOf, type AutomationGraph, type AutomationStep } from "@tidings/domain";
import type { EventStore } from "@tidings/eventstore";
import { findEventDefinition } from "./eventDefinitionStreams.js";
import { findTemplate } from "./templateStreams.js";

const invalid = (message: string) => new TidingsError("validation_error", message);

async function checkStep(store: EventStore, teamId: string, step: AutomationStep): Promise<AutomationStep> {
  if (step.type === "send_email") {
    const template = step.config.template as { id: string; variables?: unknown };
    const found = await findTemplate(store, teamId, template.id);
    if (!found) throw invalid(`Step \`${step.key}\` names template \`${template.id}\`, which does not exist.`);
    // Stored by id, so the run finds the template even if the alias moves to another one.
    return { ...step, config: { ...step.config, template: { ...template, id: found.templateId } } };
  }
  if (step.type === "add_to_segment") {
    const segmentId = step.config.segment_id as string;
    await findSegment(store, teamId, segmentId).catch(() => {
      throw invalid(`Step \`${step.key}\` names segment \`${segmentId}\`, which does not exist.`);
    });
  }
  return step;
}

/**
 * The rules of a graph that need the event store: every event name it reacts to is defined, every
 * template and segment it names exists. A template need not be published yet: it must be when a run
 * reaches the step, which fails that step otherwise.
 */
export async function checkAutomationReferences(store: EventStore, teamId: string, graph: AutomationGraph): Promise<AutomationGraph> {
  for (const name of eventNamesOf(graph)) {
    if (!(await findEventDefinition(store, teamId, name)))
      throw invalid(`The event \`${name}\` is not defined. Create it with POST /events first.`);
  }
  const steps = await Promise.all(graph.steps.map((step) => checkStep(store, teamId, step)));
  return { steps, connections: graph.connections };
}
