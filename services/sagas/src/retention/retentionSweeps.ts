import type { Logger } from "@tidings/core";
import { sweepRetention, sweptNothing, type RetentionSweepDeps } from "./sweepRetention.js";

export interface RetentionSweeps {
  /** Ends a sweep under way at its next step and waits for it; no more start. */
  stop(): Promise<void>;
}

/** One sweep at a time across every sagas process: two would do the same work side by side. */
export const RETENTION_SWEEP_LOCK = "sagas:retention-sweep";

export const FIRST_SWEEP_AFTER_MS = 30_000;

/**
 * Sweeps expired content shortly after start, then `everyMs` after each sweep ends. A process that finds
 * another sweeping skips its turn. The first sweep waits `FIRST_SWEEP_AFTER_MS` (or the interval, when
 * shorter), not a whole interval, so processes that restart more often than the interval still sweep; not
 * at once, so it neither competes with a starting installation nor reads read-model tables a projector
 * starting beside it has not made yet.
 */
export function startRetentionSweeps(deps: RetentionSweepDeps, everyMs: number, logger: Logger): RetentionSweeps {
  const stopping = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const sweepOnce = async () => {
    const lock = await deps.database.tryLock(RETENTION_SWEEP_LOCK);
    if (!lock) return;
    try {
      const swept = await sweepRetention(deps, stopping.signal);
      if (!sweptNothing(swept)) logger.info(swept, "retention sweep expired content");
    } finally {
      await lock.release();
    }
  };
  let running: Promise<void> = Promise.resolve();
  const tick = () => {
    running = sweepOnce().catch((error: unknown) => {
      if (!stopping.signal.aborted) logger.warn({ err: error }, "retention sweep failed; trying again at the next interval");
    });
    void running.then(() => {
      if (!stopping.signal.aborted) timer = setTimeout(tick, everyMs);
    });
  };
  timer = setTimeout(tick, Math.min(everyMs, FIRST_SWEEP_AFTER_MS));
  return {
    async stop() {
      stopping.abort();
      clearTimeout(timer);
      await running;
    },
  };
}
