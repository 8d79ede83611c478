import type { SubjectErasure } from "@tidings/audience";
import { forgetBlobs } from "@tidings/blobs";
import type { Position } from "@tidings/eventstore";
import type { Database } from "@tidings/postgres";
import { blobsOfSubject, scrubErasedSubject } from "@tidings/projections";
import { redactRequestLogsNaming } from "../plugins/requestLogsErasure.js";
import type { RequestLogWriter } from "../plugins/requestLogsWriter.js";

export interface CopiesDeps {
  database: Database;
  /** Resolves true once the read models have applied `position`. */
  waitFor(position: Position): Promise<boolean>;
  /** This process's request-log writer, whose buffer is written before the stored log is redacted. */
  requestLogs: Pick<RequestLogWriter, "flush">;
}

/** What an erasure reached outside the event store, for `tidings erase` to print and a test to check. */
export interface CopiesReached {
  /** Read-model rows scrubbed, by table. */
  rows: Record<string, number>;
  requestLogs: number;
  blobs: number;
  /** False when the read models had not applied the erasure in time: rows written after the scrub may still name the subject. */
  caughtUp: boolean;
}

/**
 * The copies of erased subjects outside the event store (docs/privacy.md, "Erasure"): once the read models
 * have applied every event up to the erasure, which opened to placeholders or was already applied,
 * their rows are scrubbed, the subjects' blobs deleted (found before the scrub, which removes the
 * addresses they are found by) and the request logs naming them redacted.
 */
export async function reachCopies(
  deps: CopiesDeps,
  teamId: string,
  erasures: SubjectErasure[],
  contactId?: string,
): Promise<CopiesReached> {
  const reached: CopiesReached = { rows: {}, requestLogs: 0, blobs: 0, caughtUp: true };
  for (const erasure of erasures) {
    if (!(await deps.waitFor(erasure.position))) reached.caughtUp = false;
    const blobs = await blobsOfSubject(deps.database, teamId, erasure.address);
    for (const [table, count] of Object.entries(
      await scrubErasedSubject(deps.database, {
        teamId,
        address: erasure.address,
        tag: erasure.tag,
        ...(contactId ? { contactId } : {}),
      }),
    )) {
      reached.rows[table] = (reached.rows[table] ?? 0) + count;
    }
    reached.blobs += await forgetBlobs(deps.database, blobs);
    reached.requestLogs += await redactRequestLogsNaming(deps.database, deps.requestLogs, teamId, {
      ...(contactId ? { contactId } : {}),
      email: erasure.address,
    });
  }
  return reached;
}
