import { sql } from "kysely";
import { formatTimestamp, type Clock } from "@tidings/core";
import { handleCommand, loadState } from "@tidings/commands";
import type { StreamedBlobStore } from "@tidings/blobs";
import { contactImportDecider, contactImportStream } from "@tidings/domain";
import type { EventStore } from "@tidings/eventstore";
import type { Database } from "@tidings/postgres";
import { continuing, sagaMetadata } from "../sagaMetadata.js";

export interface ExpiredImportDeps {
  database: Database;
  store: EventStore;
  importFiles: StreamedBlobStore;
  clock: Clock;
}

const reason = "The file was kept as long as RETENTION_IMPORT_FILES allows and deleted before the import ended.";

/**
 * An import's file goes when the import ends (contactImports.ts). One queued before `before` that has not
 * ended (stuck, or its file unreadable by every run) fails here, and the file goes with it. The file is
 * let go by whoever appends the import's end, this or the import's own run, so it is released once.
 * Resolves with how many imports it failed.
 */
export async function failImportsPastRetention(deps: ExpiredImportDeps, before: Date): Promise<number> {
  // The read model says which imports may still hold a file; the stream decides.
  const { rows: present } = await sql<{ ready: boolean }>`SELECT to_regclass('contact_imports') IS NOT NULL AS ready`.execute(
    deps.database.db,
  );
  if (!present[0]?.ready) return 0;
  const { rows } = await sql<{ id: string }>`
    SELECT id::text AS id FROM contact_imports
     WHERE status IN ('queued', 'in_progress') AND created_at < ${before.toISOString()}::timestamptz`.execute(deps.database.db);
  let failed = 0;
  for (const { id } of rows) {
    const streamId = contactImportStream(id);
    const state = await loadState(deps.store, streamId, contactImportDecider);
    if (state.status !== "queued" && state.status !== "in_progress") continue;
    const outcome = await handleCommand({
      store: deps.store,
      streamId,
      decider: contactImportDecider,
      command: { type: "FailContactImport", reason, now: formatTimestamp(deps.clock.now()) },
      metadata: (_state, recorded) => sagaMetadata(deps.clock, "contact-import", { teamId: state.teamId, ...continuing(recorded) }),
    });
    if (outcome.events.length === 0) continue;
    await deps.importFiles.release(state.file.sha256);
    failed++;
  }
  return failed;
}
