import { migrate, type Database } from "@tidings/postgres";
import type { EventStore } from "@tidings/eventstore";
import type { ContentKind, DataKeys } from "./dataKeys.js";
import { createKeyring, type Keyring } from "./keyring.js";
import { createPostgresDataKeys, dataKeyMigrations } from "./postgresDataKeys.js";
import { createSealingEventStore } from "./sealingEventStore.js";
import { createSubjectHasher, type SubjectHasher } from "./subjectHash.js";

/** What a process needs to seal, open and shred personal data (docs/privacy.md). */
export interface Privacy {
  keys: DataKeys;
  keyring: Keyring;
  hashSubject: SubjectHasher;
  /** The store as readers and writers use it, over the store as it keeps events. */
  sealing(stored: EventStore): EventStore;
}

export interface PrivacyOptions {
  /** Each content kind's retention in milliseconds (null: for ever): sets how long one period key seals. */
  retention?: Partial<Record<ContentKind, number | null>>;
}

/** Opens the key table in the read-model database (migrating it) under the installation's secret. */
export async function createPrivacy(database: Database, secret: string, options: PrivacyOptions = {}): Promise<Privacy> {
  await migrate(database, "privacy", dataKeyMigrations);
  const keys = createPostgresDataKeys(database, secret, options.retention ? { retention: options.retention } : {});
  const keyring = createKeyring(keys);
  const hashSubject = createSubjectHasher(secret);
  return { keys, keyring, hashSubject, sealing: (stored) => createSealingEventStore(stored, { keyring, hashSubject }) };
}
