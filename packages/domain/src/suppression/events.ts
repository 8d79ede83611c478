import { z } from "zod";

/** Reference §6.18. A bounce is recorded by the delivery saga's `EmailBounced`; the others come through here. */
export const suppressionOrigins = ["bounce", "complaint", "manual"] as const;
export type SuppressionOrigin = (typeof suppressionOrigins)[number];

export const SuppressionAdded = z.object({
  type: z.literal("SuppressionAdded"),
  data: z.object({
    suppressionId: z.uuid(),
    teamId: z.uuid(),
    /** Bare and lower-cased, as the send path compares it. */
    email: z.string(),
    origin: z.enum(suppressionOrigins),
    /** The email whose bounce or complaint caused it; null for a manual one. */
    sourceId: z.uuid().nullable(),
    createdAt: z.string(),
  }),
});

export const SuppressionRemoved = z.object({
  type: z.literal("SuppressionRemoved"),
  data: z.object({ suppressionId: z.uuid(), teamId: z.uuid(), email: z.string(), removedAt: z.string() }),
});

export const SuppressionEvent = z.discriminatedUnion("type", [SuppressionAdded, SuppressionRemoved]);
export type SuppressionEvent = z.infer<typeof SuppressionEvent>;
