import { START, type RecordedEvent, type SubscribeOptions, type Subscription } from "../port.js";
import type { AppendSignal } from "./appendSignal.js";
import type { PageReader } from "./sharedPageReads.js";

export interface SubscriptionSettings {
  readPage: PageReader;
  signal: AppendSignal;
  /** Resolves once notifications flow, so nothing appended after the first read waits for a poll. */
  listening: Promise<void>;
  batchSize: number;
  pollIntervalMs: number;
}

const FIRST_RETRY_MS = 5;

/**
 * Catch-up then live, in pages of `batchSize`, so a subscription never holds more than one page.
 *
 * It wakes on a NOTIFY, and polls as well: a notification can be missed, and it can arrive before the
 * event is readable, while an older transaction is still in flight below it (see readAllPage). In that
 * lagging state only a notification from the horizon's transaction or an older one (the blocker) is news;
 * otherwise it retries with a growing delay, because the blocker may not be an append at all. The delay
 * grows only while the same transaction blocks: under load a new short one is in flight at nearly every
 * read, and a delay carried over from blocker to blocker reached the poll interval and stayed there
 * (the forwarder then published in 500 ms steps, 350–450 ms after each append at 200 events/s).
 */
export function postgresSubscription(
  settings: SubscriptionSettings,
  options: SubscribeOptions,
): { subscription: Subscription; stopped: Promise<void> } {
  const { readPage, signal, batchSize, pollIntervalMs } = settings;
  let stopped = false;
  let reading: Promise<unknown> = Promise.resolve();
  let notifiedSinceRead: bigint | undefined;
  let waiting: { wakesOn: (tx: bigint) => boolean; wake: () => void } | undefined;
  let finish!: () => void;
  const stoppedPromise = new Promise<void>((resolve) => (finish = resolve));

  const unlisten = signal.listen((tx) => {
    notifiedSinceRead = notifiedSinceRead === undefined || tx < notifiedSinceRead ? tx : notifiedSinceRead;
    if (waiting?.wakesOn(tx)) waiting.wake();
  });

  const pause = (ms: number, wakesOn: (tx: bigint) => boolean) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(() => waiting?.wake(), ms);
      waiting = {
        wakesOn,
        wake: () => {
          clearTimeout(timer);
          waiting = undefined;
          resolve();
        },
      };
    });

  async function* run(): AsyncGenerator<RecordedEvent> {
    try {
      // A stop while the LISTEN is still being set up ends the iteration: otherwise whoever iterates waits
      // for a connection nobody needs any more, and a stopping projector with it.
      await Promise.race([settings.listening, stoppedPromise]);
      if (stopped) return;
      let cursor = options.after ?? START;
      let retryMs = FIRST_RETRY_MS;
      let blocker: bigint | undefined;
      while (!stopped) {
        notifiedSinceRead = undefined;
        const read = readPage(cursor, batchSize, options.filter, options.dataTypes);
        reading = read.catch(() => {});
        const page = await read;
        for (const event of page.events) {
          if (stopped) return;
          yield event;
        }
        cursor = page.next;
        if (!page.exhausted || stopped) continue;
        const lagging = signal.latest >= page.horizon;
        const isNews = (tx: bigint) => !lagging || tx <= page.horizon;
        if (notifiedSinceRead !== undefined && isNews(notifiedSinceRead)) continue;
        retryMs = lagging && page.horizon === blocker ? Math.min(retryMs * 2, pollIntervalMs) : FIRST_RETRY_MS;
        blocker = lagging ? page.horizon : undefined;
        await pause(lagging ? retryMs : pollIntervalMs, isNews);
      }
    } finally {
      stopped = true;
      unlisten();
      finish();
    }
  }

  const iterator = run();
  const subscription: Subscription = {
    [Symbol.asyncIterator]: () => iterator,
    async stop() {
      stopped = true;
      waiting?.wake();
      unlisten();
      await reading;
      finish();
    },
  };
  return { subscription, stopped: stoppedPromise };
}
