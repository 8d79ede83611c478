import { z } from "zod";
import { eventSchema, eventUnion } from "../eventSchema.js";
import { ContactTopicChoice } from "../contact/events.js";

/** The actor of what an import writes: contact webhooks are not fired for CSV imports (docs/wire-compatibility.md §6.10). */
export const CONTACT_IMPORT_ACTOR = "saga:contact-import";

export const contactImportStatuses = ["queued", "in_progress", "completed", "failed"] as const;
export type ContactImportStatus = (typeof contactImportStatuses)[number];
export const onConflictChoices = ["upsert", "skip"] as const;
export type OnConflict = (typeof onConflictChoices)[number];

/** Which CSV column (by header) holds each field. docs/wire-compatibility.md §10.6. */
export const ColumnMap = z.object({
  email: z.string(),
  firstName: z.string().nullable(),
  lastName: z.string().nullable(),
  unsubscribed: z.string().nullable(),
  /** Property key → its column. */
  properties: z.record(z.string(), z.string()),
});
export type ColumnMap = z.infer<typeof ColumnMap>;

export const ImportCounts = z.object({
  total: z.number().int(),
  created: z.number().int(),
  updated: z.number().int(),
  skipped: z.number().int(),
  failed: z.number().int(),
});
export type ImportCounts = z.infer<typeof ImportCounts>;

/** A row that could not be imported: its line in the file and why. */
export const ImportRowError = z.object({ line: z.number().int(), reason: z.string() });
export type ImportRowError = z.infer<typeof ImportRowError>;

export const ContactImportQueued = eventSchema("ContactImportQueued", {
  importId: z.uuid(),
  teamId: z.uuid(),
  /** The uploaded file, in the streamed blob store. */
  file: z.object({ sha256: z.string(), size: z.number().int() }),
  columnMap: ColumnMap,
  onConflict: z.enum(onConflictChoices),
  segmentIds: z.array(z.uuid()),
  topics: z.array(ContactTopicChoice),
  createdAt: z.string(),
});

export const ContactImportStarted = eventSchema("ContactImportStarted", { importId: z.uuid(), startedAt: z.string() });

/**
 * A checkpoint: every data row up to `rowsDone` is applied and counted. A restarted import skips that
 * many rows and goes on, so nothing is counted twice. `errors` are the new row errors since the last one.
 */
export const ContactImportProgressed = eventSchema("ContactImportProgressed", {
  importId: z.uuid(),
  rowsDone: z.number().int(),
  counts: ImportCounts,
  errors: z.array(ImportRowError),
});

export const ContactImportCompleted = eventSchema("ContactImportCompleted", {
  importId: z.uuid(),
  teamId: z.uuid(),
  counts: ImportCounts,
  completedAt: z.string(),
});

export const ContactImportFailed = eventSchema("ContactImportFailed", {
  importId: z.uuid(),
  teamId: z.uuid(),
  reason: z.string(),
  failedAt: z.string(),
});

export const ContactImportEvent = eventUnion([
  ContactImportQueued,
  ContactImportStarted,
  ContactImportProgressed,
  ContactImportCompleted,
  ContactImportFailed,
]);
export type ContactImportEvent = z.infer<typeof ContactImportEvent>;
