import { z } from "zod";

export const TeamCreated = z.object({
  type: z.literal("TeamCreated"),
  data: z.object({ teamId: z.uuid(), name: z.string().min(1).max(100), createdAt: z.string() }),
});

export const TeamRateLimitSet = z.object({
  type: z.literal("TeamRateLimitSet"),
  data: z.object({ teamId: z.uuid(), requestsPerSecond: z.number().int().positive() }),
});

/** The team's broadcast emails per second; null goes back to the install's BROADCAST_EMAILS_PER_SECOND. */
export const TeamBroadcastRateSet = z.object({
  type: z.literal("TeamBroadcastRateSet"),
  data: z.object({ teamId: z.uuid(), emailsPerSecond: z.number().int().positive().nullable() }),
});

export const TeamEvent = z.discriminatedUnion("type", [TeamCreated, TeamRateLimitSet, TeamBroadcastRateSet]);
export type TeamEvent = z.infer<typeof TeamEvent>;
