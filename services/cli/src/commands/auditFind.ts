import { findAuditRefs, type AuditRef } from "@tidings/api";
import type { CliOutput } from "../cliOutput.js";
import type { Runtime } from "../runtime.js";

export interface AuditFindOptions {
  key: string;
  json: boolean;
}

/**
 * `tidings audit find <resource id | email address | request id | correlation id>`: the streams and
 * events that name it, from the audit index (docs/architecture.md §4, the audit index), grouped by stream.
 * A stream whose events are gone (an erased contact's) is marked deleted: the index keeps that it was.
 * Returns the exit code: 1 when nothing names the key.
 */
export async function auditFind(
  runtime: Pick<Runtime, "store" | "database">,
  options: AuditFindOptions,
  output: CliOutput,
): Promise<number> {
  const refs = await findAuditRefs(runtime.database, options.key);
  if (refs.length === 0) {
    output.err(`no event names ${options.key} (or the projector has not indexed it yet: see tidings projections status)`);
    return 1;
  }
  const byStream = new Map<string, AuditRef[]>();
  for (const ref of refs) byStream.set(ref.stream_id, [...(byStream.get(ref.stream_id) ?? []), ref]);
  for (const [stream, streamRefs] of byStream) {
    const deleted = (await runtime.store.readStream(stream, { maxCount: 1 })).length === 0;
    if (options.json) {
      for (const ref of streamRefs) output.out(JSON.stringify({ ...row(ref), stream_deleted: deleted }));
      continue;
    }
    output.out(`${stream}${deleted ? " (deleted: its events are gone)" : ""}`);
    for (const ref of streamRefs)
      output.out(`  #${ref.revision} ${ref.created_at.toISOString()} ${ref.type} (${ref.event_id}) names it as ${ref.kind}`);
  }
  return 0;
}

const row = (ref: AuditRef) => ({
  stream: ref.stream_id,
  revision: ref.revision,
  event_id: ref.event_id,
  type: ref.type,
  kind: ref.kind,
  created_at: ref.created_at.toISOString(),
  occurred_at: ref.occurred_at?.toISOString() ?? null,
  team_id: ref.team_id,
});
