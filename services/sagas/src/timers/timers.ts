import { sql } from "kysely";
import type { Database } from "@tidings/postgres";

/** A timer as the poller hands it to the fire handler. */
export interface DueTimer {
  key: string;
  dueAt: Date;
  payload: unknown;
  /** 1 on the first firing; more when an earlier firing threw or its process died. */
  attempt: number;
  /**
   * Whether this claim still holds the timer with time to spare (`TimerLease.stillHeld`): a fire looks just
   * before work another poller could repeat if the lease had passed to it, and throws instead when it has.
   */
  stillHeld(): boolean;
}

export interface Timers {
  /**
   * Sets the timer `key` to fire at `dueAt`; scheduling an existing key moves it and replaces its payload (the same
   * time and payload again changes nothing).
   */
  schedule(key: string, dueAt: Date, payload: unknown): Promise<void>;
  /** Removes the timer `key` if it has not fired yet. */
  cancel(key: string): Promise<void>;
}

export function createTimers(database: Database): Timers {
  return {
    async schedule(key, dueAt, payload) {
      await sql`
        INSERT INTO due_timers (key, due_at, payload) VALUES (${key}, ${dueAt.toISOString()}::timestamptz, ${JSON.stringify(payload)}::jsonb)
        ON CONFLICT (key) DO UPDATE
          SET due_at = EXCLUDED.due_at, payload = EXCLUDED.payload, generation = due_timers.generation + 1,
              locked_until = NULL, attempts = 0
          WHERE due_timers.due_at <> EXCLUDED.due_at OR due_timers.payload <> EXCLUDED.payload`.execute(database.db);
    },
    async cancel(key) {
      await sql`DELETE FROM due_timers WHERE key = ${key}`.execute(database.db);
    },
  };
}
