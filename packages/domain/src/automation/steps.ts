import { z } from "zod";
import { parseDuration } from "./duration.js";
import { RuleSchema } from "./rule.js";

export const stepTypes = [
  "trigger",
  "send_email",
  "delay",
  "wait_for_event",
  "condition",
  "contact_update",
  "contact_delete",
  "add_to_segment",
] as const;
export type StepType = (typeof stepTypes)[number];

export const connectionTypes = ["default", "condition_met", "condition_not_met", "timeout", "event_received"] as const;
export type ConnectionType = (typeof connectionTypes)[number];

/** A step as the wire has it (docs/wire-compatibility.md §6.14); `config` is kept in its wire shape, and GET shows it back. */
export const AutomationStep = z.object({ key: z.string(), type: z.enum(stepTypes), config: z.record(z.string(), z.unknown()) });
export type AutomationStep = z.infer<typeof AutomationStep>;

export const AutomationConnection = z.object({ from: z.string(), to: z.string(), type: z.enum(connectionTypes) });
export type AutomationConnection = z.infer<typeof AutomationConnection>;

export interface AutomationGraph {
  steps: AutomationStep[];
  connections: AutomationConnection[];
}

const duration = (field: string) =>
  z
    .string()
    .refine(
      (text) => parseDuration(text) !== undefined,
      `\`${field}\` must be a count and a unit between 1 second and 365 days, such as \`30 minutes\` or \`2 days\``,
    );

const variable = z.object({ var: z.string().min(1) }).strict();
const variableOr = <T extends z.ZodType>(type: T) => z.union([type, variable]);

/** The config each step type takes (docs/wire-compatibility.md §6.14), strict so that a misspelt key is refused, not ignored. */
export const stepConfigSchemas: Record<StepType, z.ZodType> = {
  trigger: z.object({ event_name: z.string().min(1) }).strict(),
  delay: z.object({ duration: duration("duration") }).strict(),
  send_email: z
    .object({
      template: z.object({ id: z.string().min(1), variables: z.record(z.string(), z.unknown()).optional() }).strict(),
      subject: z.string().min(1).optional(),
      from: z.string().min(1).optional(),
      reply_to: z.union([z.string(), z.array(z.string())]).optional(),
      topic_id: z.string().optional(),
    })
    .strict(),
  wait_for_event: z
    .object({ event_name: z.string().min(1), timeout: duration("timeout").optional(), filter_rule: RuleSchema.optional() })
    .strict(),
  condition: RuleSchema,
  contact_update: z
    .object({
      first_name: variableOr(z.string().nullable()).optional(),
      last_name: variableOr(z.string().nullable()).optional(),
      unsubscribed: variableOr(z.boolean()).optional(),
      properties: z.record(z.string(), variableOr(z.union([z.string(), z.number(), z.null()]))).optional(),
    })
    .strict(),
  contact_delete: z.object({}).strict(),
  add_to_segment: z.object({ segment_id: z.string().min(1) }).strict(),
};

/** The connection types that may leave a step of each type; the first is the one its "next" step takes by default. */
export const outgoingTypes: Record<StepType, readonly ConnectionType[]> = {
  trigger: ["default"],
  send_email: ["default"],
  delay: ["default"],
  wait_for_event: ["event_received", "timeout"],
  condition: ["condition_met", "condition_not_met"],
  contact_update: ["default"],
  contact_delete: ["default"],
  add_to_segment: ["default"],
};

export const triggerStep = (graph: AutomationGraph) => graph.steps.find((s) => s.type === "trigger");
export const triggerEventName = (graph: AutomationGraph) => triggerStep(graph)?.config.event_name as string | undefined;

/** The step a run goes to from `key` along a connection of `type`, if the graph has one. */
export const nextStepKey = (graph: AutomationGraph, key: string, type: ConnectionType) =>
  graph.connections.find((c) => c.from === key && c.type === type)?.to;

export const templateIdsOf = (graph: AutomationGraph) => [
  ...new Set(graph.steps.filter((s) => s.type === "send_email").map((s) => (s.config.template as { id: string }).id)),
];

/** Every event name the graph reacts to: its trigger's and those its `wait_for_event` steps await. */
export const eventNamesOf = (graph: AutomationGraph) => [
  ...new Set(graph.steps.filter((s) => s.type === "trigger" || s.type === "wait_for_event").map((s) => s.config.event_name as string)),
];
