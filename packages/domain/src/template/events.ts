import { z } from "zod";
import { eventSchema, eventUnion } from "../eventSchema.js";

export const templateVariableTypes = ["string", "number"] as const;
export type TemplateVariableType = (typeof templateVariableTypes)[number];

export const TemplateVariable = z.object({
  key: z.string(),
  type: z.enum(templateVariableTypes),
  fallbackValue: z.union([z.string(), z.number()]).nullable(),
});
export type TemplateVariable = z.infer<typeof TemplateVariable>;

/** What a version of a template holds; every edit records the whole of it, so a version reads from one event. */
export const TemplateContent = z.object({
  name: z.string(),
  alias: z.string().nullable(),
  subject: z.string().nullable(),
  html: z.string(),
  /** Null: generated from html at send time; "" turns that generation off (docs/wire-compatibility.md §10.4). */
  text: z.string().nullable(),
  from: z.string().nullable(),
  replyTo: z.array(z.string()).nullable(),
  variables: z.array(TemplateVariable),
});
export type TemplateContent = z.infer<typeof TemplateContent>;

export const TemplateCreated = eventSchema("TemplateCreated", {
  ...TemplateContent.shape,
  templateId: z.uuid(),
  teamId: z.uuid(),
  /** The first version, a draft. */
  versionId: z.uuid(),
  /** The template this one was duplicated from, or null. */
  duplicatedFrom: z.uuid().nullable(),
  createdAt: z.string(),
});

/**
 * The draft after an edit. A new `versionId` means the edit started a new version, because the one it
 * changed had been published; the same one means the unpublished draft was edited in place.
 */
export const TemplateUpdated = eventSchema("TemplateUpdated", {
  ...TemplateContent.shape,
  templateId: z.uuid(),
  versionId: z.uuid(),
  version: z.number().int().positive(),
  updatedAt: z.string(),
});

/** The current draft becomes what sends use, under its version number. */
export const TemplatePublished = eventSchema("TemplatePublished", {
  templateId: z.uuid(),
  versionId: z.uuid(),
  version: z.number().int().positive(),
  publishedAt: z.string(),
});

export const TemplateDeleted = eventSchema("TemplateDeleted", {
  templateId: z.uuid(),
  alias: z.string().nullable(),
  deletedAt: z.string(),
});

export const TemplateEvent = eventUnion([TemplateCreated, TemplateUpdated, TemplatePublished, TemplateDeleted]);
export type TemplateEvent = z.infer<typeof TemplateEvent>;
