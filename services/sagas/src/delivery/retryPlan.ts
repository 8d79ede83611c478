/** How long after its first attempt a deferred email is given up on. */
export const retryWindowMs = 24 * 3_600_000;

/**
 * When to try a deferred email again after its `attempt`-th deferral, or null when the next try would fall
 * past the 24 h window and the email fails instead. The last backoff step repeats.
 */
export function nextAttemptAt(options: { attempt: number; firstAttemptAt: Date; now: Date; backoffMs: number[] }): Date | null {
  const { attempt, firstAttemptAt, now, backoffMs } = options;
  const wait = backoffMs[Math.min(attempt, backoffMs.length) - 1] ?? retryWindowMs;
  const at = new Date(now.getTime() + wait);
  return at.getTime() - firstAttemptAt.getTime() > retryWindowMs ? null : at;
}
