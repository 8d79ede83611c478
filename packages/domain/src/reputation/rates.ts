import type { ReputationMetric } from "./events.js";

/** A scope's emails with an outcome in the window, as the email metrics count them. */
export interface OutcomeCounts {
  delivered: number;
  /** Permanent bounces only: a mailbox full or a greylisting is no sign of a bad list. */
  bounced: number;
  complained: number;
}

/** When a scope is paused (README, "Reputation guardrails", says why these defaults). */
export interface PauseThresholds {
  bounceRate: number;
  complaintRate: number;
  /** Below this many emails with an outcome, no rate pauses: one bounce of two sends says little. */
  minSends: number;
}

export interface PauseVerdict {
  metric: ReputationMetric;
  rate: number;
  threshold: number;
  sends: number;
}

/**
 * Whether these counts pause their scope, and on which rate: bounces first, as they are the commoner cause.
 * A rate is of the emails with an outcome, delivered or hard-bounced; a complaint comes after a delivery.
 */
export function pauseVerdict(counts: OutcomeCounts, thresholds: PauseThresholds): PauseVerdict | null {
  const sends = counts.delivered + counts.bounced;
  if (sends === 0 || sends < thresholds.minSends) return null;
  // A threshold of 0 turns its rate off (README, REPUTATION_BOUNCE_RATE_PAUSE).
  const over = (rate: number, threshold: number) => threshold > 0 && rate >= threshold;
  const bounceRate = counts.bounced / sends;
  if (over(bounceRate, thresholds.bounceRate)) return { metric: "bounce", rate: bounceRate, threshold: thresholds.bounceRate, sends };
  const complaintRate = counts.complained / sends;
  if (over(complaintRate, thresholds.complaintRate))
    return { metric: "complaint", rate: complaintRate, threshold: thresholds.complaintRate, sends };
  return null;
}

/** `12.0%`: how a refusal, the CLI and doctor show a rate. */
export const percent = (rate: number) => `${(rate * 100).toFixed(rate < 0.01 ? 2 : 1)}%`;
