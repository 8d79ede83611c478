import { z } from "zod";
import { eventSchema, eventUnion } from "../eventSchema.js";

export const TeamCreated = eventSchema("TeamCreated", { teamId: z.uuid(), name: z.string().min(1).max(100), createdAt: z.string() });

export const TeamRateLimitSet = eventSchema("TeamRateLimitSet", { teamId: z.uuid(), requestsPerSecond: z.number().int().positive() });

/** The team's broadcast emails per second; null goes back to the install's BROADCAST_EMAILS_PER_SECOND. */
export const TeamBroadcastRateSet = eventSchema("TeamBroadcastRateSet", {
  teamId: z.uuid(),
  emailsPerSecond: z.number().int().positive().nullable(),
});

export const TeamEvent = eventUnion([TeamCreated, TeamRateLimitSet, TeamBroadcastRateSet]);
export type TeamEvent = z.infer<typeof TeamEvent>;
