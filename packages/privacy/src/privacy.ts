import { migrate, type Database } from "@tidings/postgres";
import type { EventStore } from "@tidings/eventstore";
import type { DataKeys } from "./dataKeys.js";
import { createPostgresDataKeys, dataKeyMigrations } from "./postgresDataKeys.js";
import { createSealingEventStore } from "./sealingEventStore.js";
import { createSubjectHasher, type SubjectHasher } from "./subjectHash.js";

/** What a process needs to seal, open and shred personal data (docs/privacy.md). */
export interface Privacy {
  keys: DataKeys;
  hashSubject: SubjectHasher;
  /** The store as readers and writers use it, over the store as it keeps events. */
  sealing(stored: EventStore): EventStore;
}

/** Opens the key table in the read-model database (migrating it) under the installation's secret. */
export async function createPrivacy(database: Database, secret: string): Promise<Privacy> {
  await migrate(database, "privacy", dataKeyMigrations);
  const keys = createPostgresDataKeys(database, secret);
  const hashSubject = createSubjectHasher(secret);
  return { keys, hashSubject, sealing: (stored) => createSealingEventStore(stored, { keys, hashSubject }) };
}
