import { sql } from "kysely";
import { newId } from "@tidings/core";
import type { Database } from "@tidings/postgres";

/**
 * Which saga process has a delivery's attempt in hand. A timer claim says who fires a timer, not who is
 * still posting: a sweep in another process, seeing the delivery pending while a slow endpoint holds
 * the first attempt, hands it out again, and without this a second process would post it under the same
 * id. A lease outlives the longest attempt (15 s to answer, plus the reads and the record), and runs
 * out on its own when its process dies mid-attempt.
 */
export interface AttemptLeases {
  /** The lease when this process now holds the delivery (it was free, expired, or already its own); undefined when another does. */
  claim(deliveryId: string): Promise<AttemptLease | undefined>;
  release(deliveryId: string): Promise<void>;
}

export interface AttemptLease {
  /**
   * Whether half the lease is still ahead: false once half of it passed since the claim went out, counted
   * on this process's monotonic clock from before the statement was sent, so never past the database's own
   * deadline. The attempt looks here just before it posts: a process that stood still between the claim
   * and the POST (a long pause, a swapped-out host) may have let the lease run out and another process
   * take the delivery, and the half left covers the POST's 15 s and the record after it.
   */
  stillHeld(): boolean;
}

export const attemptLeaseMs = 60_000;

export function createAttemptLeases(database: Database, { holder = newId(), leaseMs = attemptLeaseMs } = {}): AttemptLeases {
  const ttl = `${leaseMs} milliseconds`;
  return {
    async claim(deliveryId) {
      const sentAt = performance.now();
      const { rows } = await sql<{ delivery_id: string }>`
        INSERT INTO webhook_attempt_leases (delivery_id, holder, expires_at) VALUES (${deliveryId}, ${holder}, now() + ${ttl}::interval)
        ON CONFLICT (delivery_id) DO UPDATE SET holder = EXCLUDED.holder, expires_at = EXCLUDED.expires_at
          WHERE webhook_attempt_leases.expires_at < now() OR webhook_attempt_leases.holder = EXCLUDED.holder
        RETURNING delivery_id`.execute(database.db);
      if (rows.length !== 1) return undefined;
      return { stillHeld: () => performance.now() - sentAt < leaseMs / 2 };
    },
    async release(deliveryId) {
      await sql`DELETE FROM webhook_attempt_leases WHERE delivery_id = ${deliveryId} AND holder = ${holder}`.execute(database.db);
    },
  };
}
