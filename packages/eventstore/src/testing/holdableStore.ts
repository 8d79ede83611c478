import type { EventStore, RecordedEvent, Subscription } from "../port.js";

export interface HoldableStore {
  /** The event store as the projections read it. */
  store: EventStore;
  /** Hands the projections no event from now until the returned release is called. */
  hold(): () => void;
}

/**
 * The event store as a test's projections see it, with a hold: while held, the projector is handed no new
 * event, so the read models stay behind the writes, as they do behind a busy projector or one in another
 * process. Everything else goes to the real store, which the api writes and reads as usual.
 */
export function holdableStore(store: EventStore): HoldableStore {
  let held: Promise<void> | undefined;
  let release = () => {};

  const subscribeToAll = (options?: Parameters<EventStore["subscribeToAll"]>[0]): Subscription => {
    const inner = store.subscribeToAll(options);
    let stop = () => {};
    const stopped = new Promise<void>((resolve) => (stop = resolve));
    let ended = false;
    return {
      async stop() {
        ended = true;
        stop();
        await inner.stop();
      },
      async *[Symbol.asyncIterator](): AsyncGenerator<RecordedEvent> {
        for await (const event of inner) {
          while (held && !ended) await Promise.race([held, stopped]);
          if (ended) return;
          yield event;
        }
      },
    };
  };

  return {
    store: { ...store, subscribeToAll },
    hold() {
      if (!held)
        held = new Promise<void>(
          (resolve) =>
            (release = () => {
              held = undefined;
              resolve();
            }),
        );
      return () => release();
    },
  };
}
