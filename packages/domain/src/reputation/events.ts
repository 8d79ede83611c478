import { z } from "zod";
import { eventSchema, eventUnion } from "../eventSchema.js";

/**
 * One stream per scope that can be paused (`reputation-<id>`): the team's id for the team, the domain's id for
 * one of its sending domains. Ids are uuids on both sides, so the two never meet.
 */
export const reputationStream = (scopeId: string) => `reputation-${scopeId}`;

/** What a pause covers: every send of the team, or the sends from one of its domains. */
export const pauseScopes = ["team", "domain"] as const;
export type PauseScope = (typeof pauseScopes)[number];

/** The rate that crossed its threshold: hard bounces, or complaints, each per email with an outcome. */
export const reputationMetrics = ["bounce", "complaint"] as const;
export type ReputationMetric = (typeof reputationMetrics)[number];

const scope = {
  scope: z.enum(pauseScopes),
  /** The team's id, or the domain's. */
  scopeId: z.uuid(),
  teamId: z.uuid(),
  /** The domain's name, for a domain's pause: what the refusal and the CLI show. */
  domainName: z.string().nullable(),
};

/**
 * The reputation watcher saw a rate over its threshold: new sends from the scope are refused until an operator
 * lifts the pause. Emails accepted before it keep going.
 */
export const SendingPaused = eventSchema("SendingPaused", {
  ...scope,
  metric: z.enum(reputationMetrics),
  /** The rate (0..1) over the window when it was noticed, and the threshold it reached. */
  rate: z.number().min(0).max(1),
  threshold: z.number().min(0).max(1),
  /** The emails with an outcome (delivered or hard-bounced) the rate is of, and the window's length. */
  sends: z.number().int().nonnegative(),
  windowHours: z.number().int().positive(),
  pausedAt: z.string(),
});

/** An operator lifted the pause (the metadata's actor says who). Outcomes before it no longer count towards a pause. */
export const SendingPauseLifted = eventSchema("SendingPauseLifted", { ...scope, liftedAt: z.string() });

export const ReputationEvent = eventUnion([SendingPaused, SendingPauseLifted]);
export type ReputationEvent = z.infer<typeof ReputationEvent>;
export type SendingPause = z.infer<typeof SendingPaused>["data"];
