import type { EventStore } from "../port.js";
import { sealStore, type SealOutcome } from "./seal.js";
import type { SealKeys } from "./signing.js";

export interface PeriodicSealing {
  stop(): Promise<void>;
}

/**
 * Seals the store every `intervalMs`, the first time at once, so a store migrated to hashes gets its
 * first seal when the projector role starts (docs/operations.md, "Integrity"). A seal with nothing new
 * since the last one is skipped; a failed one is reported and tried again at the next tick.
 */
export function startPeriodicSealing(
  store: EventStore,
  keys: SealKeys,
  intervalMs: number,
  report: { sealed(outcome: SealOutcome): void; failed(error: unknown): void },
  options: { maxEvents?: number } = {},
): PeriodicSealing {
  let running: Promise<void> = Promise.resolve();
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  const tick = () => {
    let more = false;
    running = sealStore(store, { keys, ...options }).then((outcome) => {
      more = outcome.sealed && outcome.more;
      report.sealed(outcome);
    }, report.failed);
    // A seal that stopped short of the head (MAX_EVENTS_PER_SEAL) is followed by the next at once.
    void running.then(() => {
      if (!stopped) timer = setTimeout(tick, more ? 0 : intervalMs);
    });
  };
  tick();
  return {
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await running;
    },
  };
}
