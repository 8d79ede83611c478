import { z } from "zod";
import { eventSchema, eventUnion } from "../eventSchema.js";
import { AutomationConnection, AutomationStep } from "./steps.js";

export const automationStatuses = ["enabled", "disabled"] as const;
export type AutomationStatus = (typeof automationStatuses)[number];

/** What a version of an automation holds; every change records the whole of it, so runs can keep theirs. */
export const AutomationDefinition = z.object({
  name: z.string(),
  status: z.enum(automationStatuses),
  steps: z.array(AutomationStep),
  connections: z.array(AutomationConnection),
});
export type AutomationDefinition = z.infer<typeof AutomationDefinition>;

export const AutomationCreated = eventSchema("AutomationCreated", {
  ...AutomationDefinition.shape,
  automationId: z.uuid(),
  teamId: z.uuid(),
  duplicatedFrom: z.uuid().nullable(),
  createdAt: z.string(),
});

/** `version` grows when the steps or connections change; a status or name change keeps it. */
export const AutomationUpdated = eventSchema("AutomationUpdated", {
  ...AutomationDefinition.shape,
  automationId: z.uuid(),
  teamId: z.uuid(),
  version: z.number().int().positive(),
  updatedAt: z.string(),
});

export const AutomationDeleted = eventSchema("AutomationDeleted", { automationId: z.uuid(), teamId: z.uuid(), deletedAt: z.string() });

export const AutomationEvent = eventUnion([AutomationCreated, AutomationUpdated, AutomationDeleted]);
export type AutomationEvent = z.infer<typeof AutomationEvent>;
