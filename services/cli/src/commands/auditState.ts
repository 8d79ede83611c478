import { resourceHistory, stateAt, upTo, type PointInTime } from "@tidings/api";
import type { RecordedEvent } from "@tidings/eventstore";
import type { CliOutput } from "../cliOutput.js";
import type { Runtime } from "../runtime.js";
import { UsageError } from "../usageError.js";
import { parsePointInTime, readsFor, streamOf } from "./auditReplay.js";

export interface AuditStateOptions {
  target: string;
  at?: string | undefined;
  /** Two points in time, `--diff <t1> <t2>`. */
  diff?: [string, string] | undefined;
  json: boolean;
}

interface FieldChange {
  field: string;
  before: unknown;
  after: unknown;
}

/**
 * `tidings audit state <resource id | stream> --at <time | revision>`: the resource as GET showed it
 * then; `--diff <t1> <t2>`: the fields that changed between the two and the events (with their actors)
 * that changed them. Returns the exit code: 1 when the resource did not exist at `--at`.
 */
export async function auditState(
  runtime: Pick<Runtime, "config" | "store" | "database">,
  options: AuditStateOptions,
  output: CliOutput,
): Promise<number> {
  if ((options.at === undefined) === (options.diff === undefined))
    throw new UsageError("audit state needs --at <time | revision> or --diff <t1> <t2>");
  const reads = readsFor(runtime);
  const resource = await resourceHistory(runtime.store, runtime.database, await streamOf(runtime, options.target, Object.keys(reads)));
  const state = (events: RecordedEvent[]) => stateAt(runtime.database, reads, resource, events);
  if (options.at !== undefined) {
    const shown = await state(upTo(resource, parsePointInTime(options.at, "--at")));
    if (!shown) {
      output.err(`${resource.stream} did not exist at ${options.at} (not yet created, or deleted)`);
      return 1;
    }
    output.out(options.json ? JSON.stringify(shown) : JSON.stringify(shown, null, 2));
    return 0;
  }
  const [from, to] = options.diff!.map((text) => parsePointInTime(text, "--diff")) as [PointInTime, PointInTime];
  const before = upTo(resource, from);
  const after = upTo(resource, to);
  const changes = fieldChanges(await state(before), await state(after));
  const seen = new Set(before.map((e) => e.id));
  const by = after.filter((e) => !seen.has(e.id) && e.streamId === resource.stream).map(changeEvent);
  if (options.json) output.out(JSON.stringify({ stream: resource.stream, changes, events: by }));
  else {
    output.out(`${resource.stream}: ${changes.length} field(s) changed between ${options.diff![0]} and ${options.diff![1]}`);
    for (const c of changes) output.out(`  ${c.field}: ${JSON.stringify(c.before)} → ${JSON.stringify(c.after)}`);
    output.out(`changed by ${by.length} event(s):`);
    for (const e of by)
      output.out(`  #${e.revision} ${e.created_at} ${e.type} by ${e.actor ?? "?"} (request ${e.request_id ?? "?"}, event ${e.id})`);
  }
  return 0;
}

/** Top-level fields compared by value; a resource that did not exist counts as having no fields. */
function fieldChanges(before: object | undefined, after: object | undefined): FieldChange[] {
  const a = (before ?? {}) as Record<string, unknown>;
  const b = (after ?? {}) as Record<string, unknown>;
  const fields = [...new Set([...Object.keys(a), ...Object.keys(b)])];
  return fields
    .filter((field) => JSON.stringify(a[field]) !== JSON.stringify(b[field]))
    .map((field) => ({ field, before: a[field] ?? null, after: b[field] ?? null }));
}

function changeEvent(e: RecordedEvent) {
  const text = (value: unknown) => (typeof value === "string" ? value : null);
  return {
    revision: e.revision.toString(),
    id: e.id,
    type: e.type,
    created_at: e.createdAt.toISOString(),
    actor: text(e.metadata.actor),
    request_id: text(e.metadata.requestId),
  };
}
