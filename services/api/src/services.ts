import { randomBytes } from "node:crypto";
import { systemClock, type Clock, type Config } from "@tidings/core";
import type { EventStore, Position } from "@tidings/eventstore";
import type { Database } from "@tidings/postgres";
import { createSubjectHasher, type DataKeys, type SubjectHasher } from "@tidings/privacy";

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
   * sees its write (docs/architecture.md §1); false when READ_YOUR_WRITES_TIMEOUT_MS passed first. The write stands
   * either way: a route replies with success and the read model catches up shortly after.
   */
  waitFor(position: Position): Promise<boolean>;
  /**
   * Resolves true once `projections` have applied every event committed before the call, by this process
   * or any other; false after CATCH_UP_TIMEOUT_MS. A command whose rule can only be checked in a read
   * model (no stream lists what it needs) decides after true, and refuses to decide on false. Naming only
   * the projections it reads keeps a rebuild of another one from holding it back.
   */
  catchUp(projections: readonly string[]): Promise<boolean>;
  clock: Clock;
  config: Config;
  /**
   * Keys the sealing of secrets at rest (DKIM private keys, webhook signing secrets): TIDINGS_SECRET, or
   * the one embedded mode generated into DATA_DIR. The sagas open with the same one.
   */
  secret: string;
  /** A data subject's keyed hash under `secret`: how an address erased while suppressed is still found (docs/privacy.md). */
  hashSubject: SubjectHasher;
  /** The key table under `secret`, whose keys an erasure shreds (docs/privacy.md). */
  keys: DataKeys;
}

export interface ApiServicesOptions {
  store: EventStore;
  database: Database;
  config: Config;
  /** A checkpoint waiter's `waitFor` over `productProjections`. */
  waitFor: (position: Position, timeoutMs: number, projections?: readonly string[]) => Promise<boolean>;
  clock?: Clock;
  /** Defaults to TIDINGS_SECRET, else a random one for this process (tests: nothing sealed outlives it). */
  secret?: string;
  /** The key table `store` seals with (`createPrivacy`). */
  keys: DataKeys;
}

/**
 * Longer than a read-your-writes wait: giving up refuses a request the client must send again, where a
 * read-your-writes wait that gives up still answers with the write made.
 */
export const CATCH_UP_TIMEOUT_MS = 10_000;

export function createApiServices(options: ApiServicesOptions): ApiServices {
  const { store, database, config } = options;
  const timeoutMs = config.READ_YOUR_WRITES_TIMEOUT_MS;
  const secret = options.secret ?? config.TIDINGS_SECRET ?? randomBytes(32).toString("hex");
  return {
    store,
    database,
    config,
    clock: options.clock ?? systemClock,
    secret,
    hashSubject: createSubjectHasher(secret),
    keys: options.keys,
    waitFor: (position) => options.waitFor(position, timeoutMs),
    // The committed position, not the head: the head stops short of a write committed after an older one
    // still in flight, and the rule must see every write that was answered before it was asked.
    catchUp: async (projections) => options.waitFor(await store.committedPosition(), CATCH_UP_TIMEOUT_MS, projections),
  };
}
