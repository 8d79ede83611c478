import type { Migration } from "@tidings/postgres";
import { batchedAppendMigration } from "./batchedAppendMigration.js";
import { eventsMigration } from "./eventsMigration.js";
import { integrityMigration } from "./integrityMigration.js";
import { setAppendLookupMigration, setAppendMigration } from "./setAppendMigration.js";

/** The NOTIFY channel an append signals on (named literally in the SQL); the payload is the appending transaction's id. */
export const APPENDED_CHANNEL = "eventstore_appended";

/** SQLSTATE raised by `eventstore.append` on a wrong expected revision; DETAIL holds the actual revision. */
export const WRONG_EXPECTED_REVISION = "ES409";

/**
 * Apply with `migrate(database, "eventstore", eventStoreMigrations)`. The tables live in their own schema
 * because in embedded mode read models and the bus share this database.
 */
export const eventStoreMigrations: Migration[] = [
  eventsMigration,
  batchedAppendMigration,
  setAppendMigration,
  setAppendLookupMigration,
  integrityMigration,
];
