import { z } from "zod";
import { eventSchema, eventUnion } from "../eventSchema.js";

export const SegmentCreated = eventSchema("SegmentCreated", {
  segmentId: z.uuid(),
  teamId: z.uuid(),
  name: z.string(),
  createdAt: z.string(),
});

export const SegmentRenamed = eventSchema("SegmentRenamed", { segmentId: z.uuid(), name: z.string(), renamedAt: z.string() });

/** Memberships are the contacts' (their streams); readers drop those of a deleted segment. */
export const SegmentDeleted = eventSchema("SegmentDeleted", { segmentId: z.uuid(), teamId: z.uuid(), deletedAt: z.string() });

export const SegmentEvent = eventUnion([SegmentCreated, SegmentRenamed, SegmentDeleted]);
export type SegmentEvent = z.infer<typeof SegmentEvent>;
