import { DomainError } from "../decider.js";
import { outgoingTypes, stepConfigSchemas, type AutomationGraph } from "./steps.js";

export const AUTOMATION_STEPS_MAX = 100;
const keyPattern = /^[A-Za-z0-9_-]{1,100}$/;

const invalid = (message: string) => new DomainError("validation_error", message);

function firstIssue(error: { issues: readonly { path: readonly PropertyKey[]; message: string }[] }): string {
  const issue = error.issues[0]!;
  return issue.path.length ? `\`${issue.path.map(String).join(".")}\`: ${issue.message}` : issue.message;
}

/**
 * The structural rules of a graph (docs/wire-compatibility.md §10.8), each refused with a message naming the step or connection:
 * one trigger, unique keys, configs of their type, connections between existing steps with a type the
 * source step can take, one way out per type (a run follows one path), every step reachable, no cycle.
 * What needs I/O (the trigger's event exists, the templates exist) the handler checks.
 */
export function checkGraph(graph: AutomationGraph): DomainError | undefined {
  const { steps, connections } = graph;
  if (steps.length === 0) return invalid("The `steps` field must hold at least the `trigger` step.");
  if (steps.length > AUTOMATION_STEPS_MAX) return invalid(`The \`steps\` field must hold at most ${AUTOMATION_STEPS_MAX} steps.`);
  const byKey = new Map<string, (typeof steps)[number]>();
  for (const step of steps) {
    if (!keyPattern.test(step.key)) return invalid(`Step key \`${step.key}\` must be 1 to 100 letters, digits, \`_\` or \`-\`.`);
    if (byKey.has(step.key)) return invalid(`Step key \`${step.key}\` is used twice: step keys must be unique.`);
    byKey.set(step.key, step);
    const parsed = stepConfigSchemas[step.type].safeParse(step.config);
    if (!parsed.success) return invalid(`Step \`${step.key}\` (${step.type}) has an invalid config: ${firstIssue(parsed.error)}.`);
  }
  const triggers = steps.filter((s) => s.type === "trigger");
  if (triggers.length !== 1) return invalid(`An automation needs exactly one \`trigger\` step; found ${triggers.length}.`);
  const trigger = triggers[0]!;

  const taken = new Set<string>();
  for (const c of connections) {
    const from = byKey.get(c.from);
    if (!from) return invalid(`Connection from \`${c.from}\` names no step.`);
    if (!byKey.has(c.to)) return invalid(`Connection to \`${c.to}\` names no step.`);
    if (c.to === trigger.key) return invalid(`Connection to \`${c.to}\`: nothing may lead to the \`trigger\` step.`);
    if (!outgoingTypes[from.type].includes(c.type))
      return invalid(
        `Connection from \`${c.from}\` has type \`${c.type}\`; a \`${from.type}\` step takes ${outgoingTypes[from.type].map((t) => `\`${t}\``).join(" or ")}.`,
      );
    if (c.type === "timeout" && from.config.timeout === undefined)
      return invalid(`Connection from \`${c.from}\` has type \`timeout\`, but the step has no \`timeout\`.`);
    const way = `${c.from}\u0000${c.type}`;
    if (taken.has(way)) return invalid(`Step \`${c.from}\` has two \`${c.type}\` connections: a run follows one path.`);
    taken.add(way);
  }

  // Depth-first from the trigger: a step met again while still on the path closes a cycle.
  const state = new Map<string, "open" | "done">();
  const visit = (key: string): string | undefined => {
    state.set(key, "open");
    for (const c of connections.filter((c) => c.from === key)) {
      if (state.get(c.to) === "open") return c.to;
      if (!state.has(c.to)) {
        const cycle = visit(c.to);
        if (cycle) return cycle;
      }
    }
    state.set(key, "done");
    return undefined;
  };
  const cycle = visit(trigger.key);
  if (cycle) return invalid(`The connections make a cycle through step \`${cycle}\`.`);
  const unreachable = steps.find((s) => !state.has(s.key));
  if (unreachable) return invalid(`Step \`${unreachable.key}\` cannot be reached from the trigger.`);
  return undefined;
}
