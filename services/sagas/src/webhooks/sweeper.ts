import { sql } from "kysely";
import type { Logger } from "@tidings/core";
import type { Database } from "@tidings/postgres";
import type { Timers } from "../timers/index.js";
import { deliveryTimerKey, deliveryTimerPayload } from "./attemptDelivery.js";

export interface SweeperOptions {
  database: Database;
  timers: Timers;
  logger: Logger;
  /** Deliveries this process has in hand (waiting behind a slow endpoint, or running): not left behind. */
  holds(deliveryId: string): boolean;
  intervalMs: number;
  staleMs: number;
}

/**
 * Finds deliveries nobody is working on: pending (never attempted since creation or replay) or past their
 * retry time, for longer than `staleMs`, not in this process's hands and with no attempt claimed by
 * another (`AttemptLeases`). Each gets a timer due now; the timer poller's SKIP LOCKED claim makes one
 * process take it up, and the attempt's own claim keeps it from running beside one this sweep could not
 * see (a delivery waiting in another process's queue). This is what makes a first attempt durable
 * without a timer per delivery.
 */
export function startSweeper(options: SweeperOptions): { stop(): Promise<void> } {
  const { database, timers, logger } = options;
  let stopped = false;
  let wake: (() => void) | undefined;
  const sweep = async () => {
    const stale = `${options.staleMs} milliseconds`;
    const { rows } = await sql<{ id: string; webhook_id: string }>`
      SELECT id, webhook_id FROM webhook_deliveries
      WHERE status IN ('pending', 'attempting') AND status_at < now() - ${stale}::interval
        AND (next_attempt_at IS NULL OR next_attempt_at < now() - ${stale}::interval)
        AND NOT EXISTS (SELECT 1 FROM webhook_attempt_leases l WHERE l.delivery_id = webhook_deliveries.id AND l.expires_at > now())
      ORDER BY status_at LIMIT 500`.execute(database.db);
    for (const row of rows.filter((r) => !options.holds(r.id)))
      await timers.schedule(deliveryTimerKey(row.id), new Date(), deliveryTimerPayload(row.id, row.webhook_id));
  };
  const loop = (async () => {
    while (!stopped) {
      await new Promise<void>((resolve) => {
        const handle = setTimeout(resolve, options.intervalMs);
        wake = () => {
          clearTimeout(handle);
          resolve();
        };
      });
      if (stopped) break;
      // The read model may not exist yet in a sagas process started before its projector.
      await sweep().catch((error) => logger.warn({ err: error }, "webhook sweep failed; trying again"));
    }
  })();
  return {
    async stop() {
      stopped = true;
      wake?.();
      await loop;
    },
  };
}
