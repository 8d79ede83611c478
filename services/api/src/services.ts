import { systemClock, type Clock, type Config } from "@tidings/core";
import type { EventStore, Position } from "@tidings/eventstore";
import type { Database } from "@tidings/postgres";

/**
 * What a route needs to serve a request: the event store to write through, the read database to query,
 * and read-your-writes. One per api process, shared by every route.
 */
export interface ApiServices {
  store: EventStore;
  /** The read database: read models, and the api's operational tables. */
  database: Database;
  /**
   * Resolves once the product projections have applied `position`, so a client that writes and then reads
   * sees its write (DESIGN §1); false when READ_YOUR_WRITES_TIMEOUT_MS passed first. The write stands
   * either way: a route replies with success and the read model catches up shortly after.
   */
  waitFor(position: Position): Promise<boolean>;
  clock: Clock;
  config: Config;
  /**
   * Signs links the API hands out to be followed later (unsubscribe pages): TIDINGS_SECRET, or embedded
   * mode's generated secret, so a link outlives a restart. Undefined only in tests that sign nothing.
   */
  secret: string | undefined;
}

export interface ApiServicesOptions {
  store: EventStore;
  database: Database;
  config: Config;
  /** A checkpoint waiter's `waitFor` over `productProjections`. */
  waitFor: (position: Position, timeoutMs: number) => Promise<boolean>;
  clock?: Clock;
  /** Embedded mode's secret from DATA_DIR, when TIDINGS_SECRET is unset. */
  secret?: string;
}

export function createApiServices(options: ApiServicesOptions): ApiServices {
  const { store, database, config } = options;
  const timeoutMs = config.READ_YOUR_WRITES_TIMEOUT_MS;
  return {
    store,
    database,
    config,
    clock: options.clock ?? systemClock,
    secret: options.secret ?? config.TIDINGS_SECRET,
    waitFor: (position) => options.waitFor(position, timeoutMs),
  };
}
