import type { RecordedEvent, Subscription } from "../port.js";

/** The part of the client's `$all` subscription (a Node readable stream) that the adapter uses. */
export interface SubscriptionSource<T> {
  on(event: "data", listener: (item: T) => void): unknown;
  on(event: "error", listener: (error: Error) => void): unknown;
  on(event: "end" | "close", listener: () => void): unknown;
  pause(): unknown;
  resume(): unknown;
  unsubscribe(): Promise<void>;
}

/** Events buffered before the source is paused; a catch-up over a long `$all` must not fill memory. */
const HIGH_WATER_MARK = 256;

/**
 * The port's subscription over the client's: `toEvent` maps each item or drops it (undefined). A source
 * error, or an end the consumer did not ask for, reaches the iterator after the events buffered before it.
 * `stop()`, or leaving a `for await` loop, ends the iteration at once, even while it waits for an event.
 */
export function subscriptionOf<T>(
  source: SubscriptionSource<T>,
  toEvent: (item: T) => RecordedEvent | undefined,
  onStop: () => void = () => undefined,
): Subscription {
  const buffer: RecordedEvent[] = [];
  let failure: { error: unknown } | undefined;
  let stopped = false;
  let paused = false;
  let wake: (() => void) | undefined;

  const notify = () => {
    const resume = wake;
    wake = undefined;
    resume?.();
  };
  const fail = (error: unknown) => {
    if (stopped || failure) return;
    failure = { error };
    notify();
  };

  source.on("data", (item) => {
    if (stopped || failure) return;
    let event: RecordedEvent | undefined;
    try {
      event = toEvent(item);
    } catch (error) {
      fail(error);
      void source.unsubscribe();
      return;
    }
    if (!event) return;
    buffer.push(event);
    if (buffer.length >= HIGH_WATER_MARK && !paused) {
      paused = true;
      source.pause();
    }
    notify();
  });
  source.on("error", fail);
  source.on("end", () => fail(new Error("EventStoreDB ended the $all subscription")));
  source.on("close", () => fail(new Error("EventStoreDB closed the $all subscription")));

  const stop = async () => {
    if (stopped) return;
    stopped = true;
    buffer.length = 0;
    notify();
    onStop();
    try {
      await source.unsubscribe();
    } catch (error) {
      // A call that failed to open has nothing to cancel, and its error has already reached the iterator.
      if (!failure) throw error;
    }
  };

  const next = async (): Promise<IteratorResult<RecordedEvent>> => {
    for (;;) {
      if (stopped) return { value: undefined, done: true };
      const event = buffer.shift();
      if (event) {
        if (paused && buffer.length <= HIGH_WATER_MARK / 2) {
          paused = false;
          source.resume();
        }
        return { value: event, done: false };
      }
      if (failure) {
        const { error } = failure;
        await stop();
        throw error;
      }
      await new Promise<void>((resolve) => (wake = resolve));
    }
  };

  return {
    stop,
    [Symbol.asyncIterator]: () => ({
      next,
      return: async () => {
        await stop();
        return { value: undefined, done: true };
      },
    }),
  };
}
