import { mkdirSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { isPostgresUrl, migrate, openDatabase, type Database, type OpenOptions } from "@tidings/postgres";
import type { EventStore } from "./port.js";
import { eventStoreMigrations } from "./postgres/migrations.js";
import { createPostgresEventStore } from "./postgres/postgresEventStore.js";

export interface OpenedEventStore {
  store: EventStore;
  /** The database under a PostgreSQL or PGlite store, for read models and the bus to share in embedded mode. */
  database?: Database;
  /** Closes the store and the database it opened. */
  close(): Promise<void>;
}

export function isEsdbUrl(url: string): boolean {
  return /^(esdb|esdb\+discover|kurrentdb):\/\//.test(url);
}

/**
 * Opens the event store a URL names: `postgres://…` (PostgreSQL), `esdb://…` (EventStoreDB), or else a
 * PGlite directory (or `memory://`). Migrations are applied on open.
 */
export async function openEventStore(url: string, options: Pick<OpenOptions, "preparedStatements"> = {}): Promise<OpenedEventStore> {
  if (isEsdbUrl(url)) {
    // Loaded only when asked for: the EventStoreDB client is heavy, and embedded mode never needs it.
    const { openEsdbEventStore } = await import("./esdb/index.js");
    const store = await openEsdbEventStore(url);
    return { store, close: () => store.close() };
  }
  if (!isPostgresUrl(url) && url !== "memory://") mkdirSync(dirname(resolve(url)), { recursive: true });
  const database = await openDatabase({ url, ...options });
  try {
    await migrate(database, "eventstore", eventStoreMigrations);
  } catch (error) {
    await database.close();
    throw error;
  }
  const store = createPostgresEventStore(database, { ownsDatabase: true });
  return { store, database, close: () => store.close() };
}
