import { z } from "zod";

export const TeamCreated = z.object({
  type: z.literal("TeamCreated"),
  data: z.object({ teamId: z.uuid(), name: z.string().min(1).max(100), createdAt: z.string() }),
});

export const TeamRateLimitSet = z.object({
  type: z.literal("TeamRateLimitSet"),
  data: z.object({ teamId: z.uuid(), requestsPerSecond: z.number().int().positive() }),
});

export const TeamEvent = z.discriminatedUnion("type", [TeamCreated, TeamRateLimitSet]);
export type TeamEvent = z.infer<typeof TeamEvent>;
