import { setMaxListeners } from "node:events";
import { sql } from "kysely";
import { setImmediate as yieldToEventLoop } from "node:timers/promises";
import type { Logger } from "@tidings/core";
import type { Database } from "@tidings/postgres";
import type { DueTimer } from "./timers.js";
import { holdTimerLease } from "./timerLease.js";

export interface TimerPollerOptions {
  database: Database;
  logger: Logger;
  /**
   * Fires one timer. It must be safe to call twice for the same timer (at-least-once): a timer fires by
   * appending an event through a decider that answers an already-applied command with no events. A long
   * fire stops early by throwing once `stopping` is aborted: the timer is handed back, due as it was.
   */
  fire(timer: DueTimer, stopping: AbortSignal): Promise<void>;
  /** How often the table is asked for due timers; the bound on lateness. Defaults to 200 ms. */
  intervalMs?: number;
  /** Timers claimed per query. Defaults to 50. */
  batchSize?: number;
  /** How long a claimed timer stays out of other pollers' reach while it fires. Defaults to 60 s. */
  leaseMs?: number;
  /** Delay before a timer whose firing threw is tried again. Defaults to 5 s. */
  retryDelayMs?: number;
}

export interface TimerPoller {
  stop(): Promise<void>;
}

/**
 * Claims due timers and fires them. A claim is a lease, not an open transaction: firing appends to the
 * event store, which may be another database (EventStoreDB) or, embedded, the same single PGlite session
 * that a held transaction would block. `FOR UPDATE SKIP LOCKED` lets several saga processes claim from
 * one table without taking the same rows. The row is deleted after the fire succeeds, matching the
 * generation it claimed, so a reschedule that arrived meanwhile survives; a process that dies between
 * firing and deleting leaves the row to fire again when its lease runs out, which the idempotent append
 * absorbs.
 */
export function startTimerPoller(options: TimerPollerOptions): TimerPoller {
  const { database, logger, fire } = options;
  const intervalMs = options.intervalMs ?? 200;
  const batchSize = options.batchSize ?? 50;
  const leaseMs = options.leaseMs ?? 60_000;
  const retryDelayMs = options.retryDelayMs ?? 5_000;
  const stopping = new AbortController();
  // Every fire under way may listen on it.
  setMaxListeners(0, stopping.signal);
  const stopped = () => stopping.signal.aborted;
  let wake: (() => void) | undefined;

  const claim = async () => {
    const claimedAt = performance.now();
    const { rows } = await sql<{ key: string; due_at: Date | string; payload: unknown; generation: number; attempts: number }>`
      UPDATE due_timers SET locked_until = now() + ${`${leaseMs} milliseconds`}::interval, attempts = attempts + 1
      WHERE key IN (
        SELECT key FROM due_timers
        WHERE due_at <= now() AND (locked_until IS NULL OR locked_until < now())
        ORDER BY due_at LIMIT ${batchSize}
        FOR UPDATE SKIP LOCKED)
      RETURNING key, due_at, payload, generation, attempts`.execute(database.db);
    return rows.map((row) => ({ ...row, claimedAt }));
  };

  const fireOne = async (row: Awaited<ReturnType<typeof claim>>[number]) => {
    const payload = typeof row.payload === "string" ? JSON.parse(row.payload) : row.payload;
    const lease = holdTimerLease(database, row, leaseMs, row.claimedAt);
    try {
      await fire(
        { key: row.key, dueAt: new Date(row.due_at), payload, attempt: row.attempts, stillHeld: lease.stillHeld },
        stopping.signal,
      );
      lease.end();
      await sql`DELETE FROM due_timers WHERE key = ${row.key} AND generation = ${row.generation}`.execute(database.db);
    } catch (error) {
      lease.end();
      // A fire the stop cut short is no failure: its lease ends now, so the next poller (another process,
      // or this one started again) takes it up at once. A lease another poller claimed since is not this
      // one's to change.
      const retryIn = stopped() ? 0 : retryDelayMs;
      if (!stopped()) logger.error({ err: error, timer: row.key, attempt: row.attempts }, "timer fire failed; retrying later");
      await sql`
        UPDATE due_timers SET locked_until = now() + ${`${retryIn} milliseconds`}::interval
        WHERE key = ${row.key} AND generation = ${row.generation} AND attempts = ${row.attempts}`
        .execute(database.db)
        .catch(() => {});
    }
  };

  const loop = (async () => {
    while (!stopped()) {
      let claimed = 0;
      try {
        const rows = await claim();
        claimed = rows.length;
        await Promise.all(rows.map(fireOne));
      } catch (error) {
        if (!stopped()) logger.error({ err: error }, "timer poll failed");
      }
      // PGlite answers in microtasks; without a real yield this loop would starve sockets and timers.
      await yieldToEventLoop();
      if (claimed < batchSize && !stopped()) {
        await new Promise<void>((resolve) => {
          const handle = setTimeout(resolve, intervalMs);
          wake = () => {
            clearTimeout(handle);
            resolve();
          };
        });
        wake = undefined;
      }
    }
  })();

  return {
    async stop() {
      stopping.abort();
      wake?.();
      await loop;
    },
  };
}
