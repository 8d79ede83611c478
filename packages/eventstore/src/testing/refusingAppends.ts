import type { EventStore } from "../port.js";

export interface RefusingAppends {
  store: EventStore;
  /** Appends tried so far, refused or not. */
  readonly attempts: number;
}

/**
 * The event store as a process sees it while the database restarts: its first `refusals` appends fail as a
 * dropped connection fails them, and every append after goes through to `store`.
 */
export function refusingAppends(store: EventStore, refusals: number): RefusingAppends {
  let attempts = 0;
  return {
    store: {
      ...store,
      append: async (...args) => {
        if (++attempts <= refusals) throw new Error("Connection terminated unexpectedly");
        return store.append(...args);
      },
    },
    get attempts() {
      return attempts;
    },
  };
}
