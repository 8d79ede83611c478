import { setTimeout as sleep } from "node:timers/promises";
import { DomainRejection } from "@tidings/commands";

/** How long a recording is tried again while the store refuses it; a database restart takes seconds. */
const retryForMs = 30_000;

/**
 * Records the outcome of an effect already made (an email the server accepted, a webhook the endpoint
 * took), trying again while the store refuses it (its database restarting), for up to 30 s or until
 * `stopping` aborts. Given up, the effect is made again when its message or timer comes back: the window
 * between an effect and its record is to stay as short as a crash makes it, and an outage must not widen
 * it. `record` must be safe to repeat (its events have deterministic ids); a decider's refusal is final.
 */
export async function untilRecorded(record: () => Promise<void>, stopping?: AbortSignal): Promise<void> {
  const giveUpAt = Date.now() + retryForMs;
  for (let pauseMs = 100; ; pauseMs = Math.min(pauseMs * 2, 2_000)) {
    try {
      return await record();
    } catch (error) {
      if (error instanceof DomainRejection || stopping?.aborted || Date.now() + pauseMs > giveUpAt) throw error;
      await sleep(pauseMs, undefined, stopping ? { signal: stopping } : {}).catch(() => {});
    }
  }
}
