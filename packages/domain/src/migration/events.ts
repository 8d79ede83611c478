import { z } from "zod";
import { eventSchema, eventUnion } from "../eventSchema.js";

/** What a migration copies, in the order it copies them: each kind may name the kinds before it. */
export const migratedKinds = ["contact_property", "topic", "segment", "contact", "template", "webhook", "domain"] as const;
export type MigratedKind = (typeof migratedKinds)[number];

/** The first run of a migration from `source` into the team: what the rest of the stream belongs to. */
export const MigrationStarted = eventSchema("MigrationStarted", {
  migrationId: z.uuid(),
  teamId: z.uuid(),
  /** The source API's base URL; never its key. */
  source: z.string(),
  startedAt: z.string(),
});

/**
 * One resource of the source now exists here: the mapping a later run reads to copy nothing twice.
 * A webhook's signing secret is not in it: it was printed once, and is sealed in the webhook's stream.
 */
export const ResourceCopied = eventSchema("ResourceCopied", {
  migrationId: z.uuid(),
  kind: z.enum(migratedKinds),
  sourceId: z.string(),
  localId: z.uuid(),
  copiedAt: z.string(),
});

/** A run that went through the whole source: the run record, with how many resources it copied itself. */
export const MigrationCompleted = eventSchema("MigrationCompleted", {
  migrationId: z.uuid(),
  copied: z.number().int(),
  completedAt: z.string(),
});

export const MigrationEvent = eventUnion([MigrationStarted, ResourceCopied, MigrationCompleted]);
export type MigrationEvent = z.infer<typeof MigrationEvent>;
