import { deterministicId, systemClock, formatTimestamp } from "@tidings/core";
import { handleCommand, loadState } from "@tidings/commands";
import { migrationDecider, migrationStream, type MigratedKind, type MigrationCommand, type MigrationState } from "@tidings/domain";
import type { EventMetadata, EventStore } from "@tidings/eventstore";

/** A source URL as one migration knows it: the same base URL with or without a trailing slash is one source. */
export const sourceKey = (baseUrl: string) => baseUrl.trim().replace(/\/+$/, "");

/** One migration per team and source: every run from the same source into the same team continues it. */
export const migrationIdFor = (teamId: string, baseUrl: string) => deterministicId("migration", teamId, sourceKey(baseUrl));

/**
 * The local id a source resource is copied to. Derived, so a run killed after a create but before its
 * ResourceCopied finds the resource under the same id and records it instead of creating another.
 */
export const localIdFor = (migrationId: string, kind: MigratedKind, sourceId: string) =>
  deterministicId("migrated", migrationId, kind, sourceId);

export const loadMigration = (store: EventStore, migrationId: string): Promise<MigrationState> =>
  loadState(store, migrationStream(migrationId), migrationDecider);

export const nowText = () => formatTimestamp(systemClock.now());

/** Decides a command on the migration's stream; how many events it appended. */
export async function recordMigration(
  store: EventStore,
  migrationId: string,
  command: MigrationCommand,
  metadata: EventMetadata,
): Promise<number> {
  const { events } = await handleCommand({ store, streamId: migrationStream(migrationId), decider: migrationDecider, command, metadata });
  return events.length;
}
