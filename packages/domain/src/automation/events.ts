import { z } from "zod";
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

export const AutomationCreated = z.object({
  type: z.literal("AutomationCreated"),
  data: AutomationDefinition.extend({
    automationId: z.uuid(),
    teamId: z.uuid(),
    duplicatedFrom: z.uuid().nullable(),
    createdAt: z.string(),
  }),
});

/** `version` grows when the steps or connections change; a status or name change keeps it. */
export const AutomationUpdated = z.object({
  type: z.literal("AutomationUpdated"),
  data: AutomationDefinition.extend({ automationId: z.uuid(), teamId: z.uuid(), version: z.number().int().positive(), updatedAt: z.string() }),
});

export const AutomationDeleted = z.object({
  type: z.literal("AutomationDeleted"),
  data: z.object({ automationId: z.uuid(), teamId: z.uuid(), deletedAt: z.string() }),
});

export const AutomationEvent = z.discriminatedUnion("type", [AutomationCreated, AutomationUpdated, AutomationDeleted]);
export type AutomationEvent = z.infer<typeof AutomationEvent>;
