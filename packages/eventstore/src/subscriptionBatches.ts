import type { RecordedEvent, Subscription } from "./port.js";

const TIMED_OUT = Symbol("timed out");

/**
 * Groups a subscription's events into batches of up to `batchSize` events, or fewer once `batchMs` has
 * passed since the batch's first event (0: only what the subscription already holds). Waiting for a first event has no
 * bound: an idle projection
 * applies nothing. During catch-up a page is already in memory, so batches fill at once; live, a lone
 * event waits at most `batchMs` for company.
 */
export async function* subscriptionBatches(
  subscription: Subscription,
  batchSize: number,
  batchMs: number,
): AsyncGenerator<RecordedEvent[]> {
  const iterator = subscription[Symbol.asyncIterator]();
  // The next event is requested before the batch is handed out; a failure meanwhile surfaces at its await.
  const pull = () => {
    const pulled = iterator.next();
    pulled.catch(() => {});
    return pulled;
  };
  let next = pull();
  for (;;) {
    const first = await next;
    if (first.done) return;
    const batch = [first.value];
    next = pull();
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<typeof TIMED_OUT>((resolve) => (timer = setTimeout(resolve, batchMs, TIMED_OUT)));
    let ended = false;
    try {
      while (batch.length < batchSize) {
        const result = await Promise.race([next, deadline]);
        if (result === TIMED_OUT) break;
        if (result.done) {
          ended = true;
          break;
        }
        batch.push(result.value);
        next = pull();
      }
    } finally {
      clearTimeout(timer);
    }
    yield batch;
    if (ended) return;
  }
}
