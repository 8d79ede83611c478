import type { Clock } from "@tidings/core";
import { forgetBlobs, type StreamedBlobStore } from "@tidings/blobs";
import type { EventStore } from "@tidings/eventstore";
import type { Database } from "@tidings/postgres";
import { contentKinds, periodMsOf, retentionCut, type ContentKind, type DataKeys } from "@tidings/privacy";
import { scrubExpiredContent } from "@tidings/projections";
import { expiredBlobs } from "./expiredBlobs.js";
import { failImportsPastRetention } from "./expiredImportFiles.js";
import { expireRequestLogBodies } from "./requestLogBodies.js";
import type { Retention, RetentionKind } from "./retention.js";

export interface RetentionSweepDeps {
  database: Database;
  /** The sealing store: an import failed for its expired file is appended as any saga's event. */
  store: EventStore;
  keys: DataKeys;
  /** Import files, which are held by their imports rather than by mail. */
  importFiles: StreamedBlobStore;
  clock: Clock;
  retention: Retention;
}

/** What one sweep expired. */
export interface SweptContent {
  /** Period keys shredded, by kind. */
  keys: Partial<Record<ContentKind, number>>;
  /** Read-model rows whose copy of expired content was replaced, by table. */
  rows: Record<string, number>;
  blobs: number;
  importsFailed: number;
  requestLogBodies: number;
}

export const sweptNothing = (swept: SweptContent) =>
  Object.values(swept.keys).every((n) => n === 0) &&
  Object.values(swept.rows).every((n) => n === 0) &&
  swept.blobs + swept.importsFailed + swept.requestLogBodies === 0;

/**
 * One pass of retention (docs/privacy.md, "Retention"), as an erasure works: the period keys of each kind
 * whose period ended before its retention began are shredded, so the events keep their bytes and hashes and open to
 * placeholders; then the read models' copies of that content, the blobs only expired mail refers to, the
 * files of imports that outlived their retention, and old request-log bodies go. Addresses, statuses,
 * counts and every event stay. Each step repeats harmlessly, and the read models are scrubbed of every row
 * older than the cut, so a row a projector wrote from a key it still held in memory is caught next time.
 * Stops between steps once `stopping` is aborted.
 */
export async function sweepRetention(deps: RetentionSweepDeps, stopping?: AbortSignal): Promise<SweptContent> {
  const now = deps.clock.now().getTime();
  const cut = (kind: RetentionKind) => {
    const kept = deps.retention[kind];
    if (kept === null) return null;
    return kind === "request-log-bodies" ? new Date(now - kept) : retentionCut(kept, now);
  };
  const swept: SweptContent = { keys: {}, rows: {}, blobs: 0, importsFailed: 0, requestLogBodies: 0 };
  for (const kind of contentKinds) {
    const before = cut(kind);
    if (before === null || stopping?.aborted) continue;
    swept.keys[kind] = await deps.keys.expire(kind, before);
    for (const [table, rows] of Object.entries(await scrubExpiredContent(deps.database, { kind, before })))
      swept.rows[table] = (swept.rows[table] ?? 0) + rows;
  }
  if (stopping?.aborted) return swept;
  // A period before the keys' cut: mail's `created_at` is its sender's clock, its content's period key was
  // the sealing process's at append, and the two may sit either side of a period boundary; bytes of mail whose
  // content still opens must not go before it (docs/privacy.md, "Retention").
  const blobCut = (kind: "email" | "inbound") => {
    const before = cut(kind);
    return before && new Date(before.getTime() - periodMsOf(deps.retention[kind]));
  };
  swept.blobs = await forgetBlobs(
    deps.database,
    await expiredBlobs(deps.database, { email: blobCut("email"), inbound: blobCut("inbound") }),
  );
  const imports = cut("import");
  if (imports !== null && !stopping?.aborted) swept.importsFailed = await failImportsPastRetention(deps, imports);
  const bodies = cut("request-log-bodies");
  if (bodies !== null && !stopping?.aborted) swept.requestLogBodies = await expireRequestLogBodies(deps.database, bodies);
  return swept;
}
