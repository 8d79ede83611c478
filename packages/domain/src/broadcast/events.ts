import { z } from "zod";
import { eventSchema, eventUnion } from "../eventSchema.js";

export const broadcastStream = (broadcastId: string) => `broadcast-${broadcastId}`;

/** What a broadcast says and to whom: every edit records the whole of it, so the latest reads from one event. */
export const BroadcastContent = z.object({
  name: z.string().nullable(),
  segmentId: z.uuid().nullable(),
  from: z.string().nullable(),
  subject: z.string().nullable(),
  html: z.string().nullable(),
  /** Null: generated from html per recipient; "" turns that off (docs/wire-compatibility.md §10.5). */
  text: z.string().nullable(),
  replyTo: z.array(z.string()).nullable(),
  previewText: z.string().nullable(),
  topicId: z.uuid().nullable(),
});
export type BroadcastContent = z.infer<typeof BroadcastContent>;

/** Where a broadcast was made: only `api` ones may be sent through the API (docs/wire-compatibility.md §10.1). */
export const broadcastOrigins = ["api", "dashboard"] as const;

export const BroadcastCreated = eventSchema("BroadcastCreated", {
  ...BroadcastContent.shape,
  broadcastId: z.uuid(),
  teamId: z.uuid(),
  origin: z.enum(broadcastOrigins),
  duplicatedFrom: z.uuid().nullable(),
  createdAt: z.string(),
});

export const BroadcastUpdated = eventSchema("BroadcastUpdated", {
  ...BroadcastContent.shape,
  broadcastId: z.uuid(),
  updatedAt: z.string(),
});

export const BroadcastDeleted = eventSchema("BroadcastDeleted", { broadcastId: z.uuid(), deletedAt: z.string() });

export const BroadcastScheduled = eventSchema("BroadcastScheduled", {
  broadcastId: z.uuid(),
  teamId: z.uuid(),
  domainId: z.uuid().nullable(),
  scheduledAt: z.string(),
  at: z.string(),
});

/** A scheduled broadcast canceled: back to a draft (docs/wire-compatibility.md §6.11). */
export const BroadcastUnscheduled = eventSchema("BroadcastUnscheduled", { broadcastId: z.uuid(), at: z.string() });

/**
 * Sending was asked for (now, or by the schedule's timer): the fan-out saga takes it from here.
 * `domainId` is the team's domain of the `from`, checked when the send was asked for; its key signs.
 */
export const BroadcastQueued = eventSchema("BroadcastQueued", {
  broadcastId: z.uuid(),
  teamId: z.uuid(),
  domainId: z.uuid().nullable(),
  queuedAt: z.string(),
});

/** One planned recipient: the contact as the snapshot found it. */
export const PlannedRecipient = z.object({ contactId: z.uuid(), email: z.string() });
export type PlannedRecipient = z.infer<typeof PlannedRecipient>;

/**
 * The snapshot of the audience, in batches: who the broadcast goes to, fixed when sending starts, so a
 * contact who joins the segment later is never included and a restarted fan-out plans nobody twice.
 * `count` is how many `recipients` there are, in clear: the recipients' addresses are sealed, and
 * counting them opened every address of the plan. Batches planned before it was recorded lack it.
 */
export const BroadcastBatchPlanned = eventSchema("BroadcastBatchPlanned", {
  broadcastId: z.uuid(),
  teamId: z.uuid(),
  batch: z.number().int().nonnegative(),
  recipients: z.array(PlannedRecipient),
  count: z.number().int().nonnegative().optional(),
});

/** How many recipients a batch holds, without opening their addresses where the batch says so. */
export const plannedCount = (data: z.infer<typeof BroadcastBatchPlanned>["data"]): number => data.count ?? data.recipients.length;

/** The snapshot is complete: `batches` planned events hold `recipients` recipients. */
export const BroadcastSendingStarted = eventSchema("BroadcastSendingStarted", {
  broadcastId: z.uuid(),
  batches: z.number().int().nonnegative(),
  recipients: z.number().int().nonnegative(),
  startedAt: z.string(),
});

/** Every email of batch `batch` is in the event store, handed to delivery: the fan-out's progress. */
export const BroadcastBatchQueued = eventSchema("BroadcastBatchQueued", {
  broadcastId: z.uuid(),
  batch: z.number().int().nonnegative(),
  emails: z.number().int().nonnegative(),
  at: z.string(),
});

/** The last recipient was handed to delivery. */
export const BroadcastSent = eventSchema("BroadcastSent", { broadcastId: z.uuid(), sentAt: z.string() });

/** Stopped while queued or sending: no batch is queued after this. */
export const BroadcastCanceled = eventSchema("BroadcastCanceled", { broadcastId: z.uuid(), canceledAt: z.string() });

export const BroadcastFailed = eventSchema("BroadcastFailed", { broadcastId: z.uuid(), reason: z.string(), failedAt: z.string() });

export const BroadcastEvent = eventUnion([
  BroadcastCreated,
  BroadcastUpdated,
  BroadcastDeleted,
  BroadcastScheduled,
  BroadcastUnscheduled,
  BroadcastQueued,
  BroadcastBatchPlanned,
  BroadcastSendingStarted,
  BroadcastBatchQueued,
  BroadcastSent,
  BroadcastCanceled,
  BroadcastFailed,
]);
export type BroadcastEvent = z.infer<typeof BroadcastEvent>;
