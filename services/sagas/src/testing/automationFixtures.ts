import { createLogger, systemClock } from "@tidings/core";
import { createContact } from "@tidings/audience";
import type { EventMetadata, EventStore } from "@tidings/eventstore";
import type { Database } from "@tidings/postgres";
import { createPostgresDataKeys, createSubjectHasher } from "@tidings/privacy";
import { sendingPauseOf } from "@tidings/projections";
import { suppressedRecipients } from "@tidings/sending";
import type { RunnerDeps } from "../automations/advanceRun.js";
import { parkedRuns } from "../automations/parkedRuns.js";
import { createTimers } from "../timers/index.js";

/**
 * The automation runner's dependencies on a test database, around its store: the real timers, parked runs
 * and suppression list, the system clock, and any `from` address allowed, so tests need no verified domain.
 */
const fixtureSecret = "automation-fixtures-secret-0123456789";

export function runnerDeps(database: Database, store: EventStore): RunnerDeps {
  return {
    store,
    timers: createTimers(database),
    parked: parkedRuns(database),
    clock: systemClock,
    allowUnverifiedFrom: true,
    suppressed: suppressedRecipients(database, createSubjectHasher(fixtureSecret)),
    paused: sendingPauseOf(database),
    // Made on first use: only a delete-contact step shreds keys, and the table is migrated by `createPrivacy`.
    keys: createPostgresDataKeys(database, fixtureSecret),
    hashSubject: createSubjectHasher(fixtureSecret),
    logger: createLogger("silent"),
  };
}

/** A contact for a run to act on, created as the api creates one: an email, maybe a first name, nothing else. */
export async function createRunContact(
  store: EventStore,
  contact: { contactId: string; teamId: string; email: string; firstName: string | null },
  metadata: EventMetadata,
): Promise<void> {
  const fields = { firstName: contact.firstName, lastName: null, unsubscribed: false };
  const input = { email: contact.email, fields, properties: {}, segmentIds: [], topics: [] };
  await createContact({ store, clock: systemClock }, contact.teamId, input, metadata, contact.contactId);
}
