import { z } from "zod";

export const SegmentCreated = z.object({
  type: z.literal("SegmentCreated"),
  data: z.object({ segmentId: z.uuid(), teamId: z.uuid(), name: z.string(), createdAt: z.string() }),
});

export const SegmentRenamed = z.object({
  type: z.literal("SegmentRenamed"),
  data: z.object({ segmentId: z.uuid(), name: z.string(), renamedAt: z.string() }),
});

/** Memberships are the contacts' (their streams); readers drop those of a deleted segment. */
export const SegmentDeleted = z.object({
  type: z.literal("SegmentDeleted"),
  data: z.object({ segmentId: z.uuid(), teamId: z.uuid(), deletedAt: z.string() }),
});

export const SegmentEvent = z.discriminatedUnion("type", [SegmentCreated, SegmentRenamed, SegmentDeleted]);
export type SegmentEvent = z.infer<typeof SegmentEvent>;
