import { sql } from "kysely";
import type { Database } from "@tidings/postgres";

/**
 * One claim of one timer. A claim raises `attempts` and a reschedule raises `generation` (and zeroes
 * `attempts`), so the three together name this claim and no later one, here or in another process.
 */
export interface TimerClaim {
  key: string;
  generation: number;
  attempts: number;
}

export interface TimerLease {
  /**
   * Whether the lease is surely still this process's, with half of it left: false once a renewal found the
   * timer claimed elsewhere, moved or gone, and once half the lease passed since the last renewal the
   * database confirmed (a stalled process, a database that does not answer). Work that another process
   * could not tell was done (an email handed to a relay) looks here just before it starts.
   */
  stillHeld(): boolean;
  /** Stops renewing; the fire is over. */
  end(): void;
}

/**
 * Renews a claimed timer's lease every third of it while its fire runs, as JetStream's heartbeat does for
 * a bus message, so a fire that outlasts one lease (an email waiting for a slot behind a slow relay) is
 * not claimed by a second poller meanwhile. Times are this process's monotonic clock, taken before each
 * statement went out: the database set its deadline later than that, so the hold this side counts is never
 * longer than the one the database keeps.
 */
export function holdTimerLease(database: Database, claim: TimerClaim, leaseMs: number, claimedAt: number): TimerLease {
  let confirmedAt = claimedAt;
  let lost = false;
  let ended = false;
  let next: NodeJS.Timeout | undefined;

  const renew = async () => {
    const sentAt = performance.now();
    try {
      const result = await sql`
        UPDATE due_timers SET locked_until = now() + ${`${leaseMs} milliseconds`}::interval
        WHERE key = ${claim.key} AND generation = ${claim.generation} AND attempts = ${claim.attempts}`.execute(database.db);
      if (Number(result.numAffectedRows ?? 0n) === 1) confirmedAt = Math.max(confirmedAt, sentAt);
      else lost = true;
    } catch {
      // A renewal the database did not take leaves the lease to run out on the last confirmed one, which
      // `stillHeld` counts from; the next renewal tries again.
    }
  };
  const schedule = () => {
    next = setTimeout(() => void renew().finally(() => ended || schedule()), leaseMs / 3);
    next.unref();
  };
  schedule();

  return {
    stillHeld: () => !lost && performance.now() - confirmedAt < leaseMs / 2,
    end() {
      ended = true;
      clearTimeout(next);
    },
  };
}
