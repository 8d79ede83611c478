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
  /** True when this process now holds the delivery: it was free, expired, or already its own. */
  claim(deliveryId: string): Promise<boolean>;
  release(deliveryId: string): Promise<void>;
}

export const attemptLeaseMs = 60_000;

export function createAttemptLeases(database: Database, holder: string = newId()): AttemptLeases {
  const ttl = `${attemptLeaseMs} milliseconds`;
  return {
    async claim(deliveryId) {
      const { rows } = await sql<{ delivery_id: string }>`
        INSERT INTO webhook_attempt_leases (delivery_id, holder, expires_at) VALUES (${deliveryId}, ${holder}, now() + ${ttl}::interval)
        ON CONFLICT (delivery_id) DO UPDATE SET holder = EXCLUDED.holder, expires_at = EXCLUDED.expires_at
          WHERE webhook_attempt_leases.expires_at < now() OR webhook_attempt_leases.holder = EXCLUDED.holder
        RETURNING delivery_id`.execute(database.db);
      return rows.length === 1;
    },
    async release(deliveryId) {
      await sql`DELETE FROM webhook_attempt_leases WHERE delivery_id = ${deliveryId} AND holder = ${holder}`.execute(database.db);
    },
  };
}
