import { formatPosition } from "@tidings/eventstore";
import {
  projectionStatus,
  rebuildProjection,
  verifyProjection,
  type Projection,
  type ProjectionOperation,
  type RebuildProgress,
  type RowDifference,
} from "@tidings/projections";
import type { CliOutput } from "../cliOutput.js";
import type { Runtime } from "../runtime.js";
import { findProjection, projections } from "../projections.js";
import { UsageError } from "../usageError.js";
import { printTable } from "../table.js";

/** Which projections a rebuild or verify is about, and how it reports. */
export interface ProjectionsChoice {
  names: string[];
  all: boolean;
  /** One JSON object per line on stdout: progress, then one result per projection. */
  json: boolean;
}

/** How often progress is reported, at most. */
const PROGRESS_MS = 1_000;

/** `tidings projections status`: one line per projection, checkpoint, lag, state, and its last rebuild and verify. */
export async function projectionsStatus(runtime: Runtime, json: boolean, out: CliOutput): Promise<number> {
  const statuses = await projectionStatus({ store: runtime.store, database: runtime.database, projections });
  if (json) {
    for (const s of statuses) out.out(JSON.stringify(s));
    return 0;
  }
  const rows = statuses.map((s) => [
    s.name,
    `v${s.liveVersion ?? "-"}${s.liveVersion !== s.version ? `→v${s.version}` : ""}`,
    s.state,
    s.checkpoint ?? "-",
    `${s.lagEvents}${s.lagCapped ? "+" : ""} events`,
    `${s.lagSeconds.toFixed(1)} s`,
    operationCell(s.lastRebuild),
    operationCell(s.lastVerify),
    s.rebuild ? `rebuilding v${s.rebuild.version} ${(s.rebuild.fraction * 100).toFixed(0)}%` : "",
  ]);
  printTable(out, ["projection", "version", "state", "checkpoint", "lag", "lag age", "last rebuild", "last verify", ""], rows);
  return 0;
}

/** A rebuild or verify in one cell: outcome, differences, when, events and duration. */
export function operationCell(operation: ProjectionOperation | undefined): string {
  if (!operation) return "-";
  const outcome = operation.outcome === "differs" ? `differs (${operation.differences} rows)` : operation.outcome;
  return `${outcome} ${operation.finishedAt.toISOString().slice(0, 19)}Z ${operation.events} events ${operation.seconds.toFixed(1)} s`;
}

function chosen(choice: ProjectionsChoice, command: string): Projection[] {
  if (choice.all) {
    if (choice.names.length > 0) throw new UsageError(`${command} takes projection names or --all, not both`);
    return projections;
  }
  if (choice.names.length === 0) throw new UsageError(`${command} needs a projection name or --all`);
  return choice.names.map((name) => {
    const projection = findProjection(name);
    if (!projection) throw new UsageError(`no projection named "${name}"; known: ${projections.map((p) => p.name).join(", ")}`);
    return projection;
  });
}

/** Calls `report` at most once a second, and always for the last call when `flush` runs. */
function throttled<T>(report: (value: T) => void): { next(value: T): void; flush(): void } {
  let last = 0;
  let pending: T | undefined;
  return {
    next(value) {
      pending = value;
      if (Date.now() - last < PROGRESS_MS) return;
      last = Date.now();
      report(value);
      pending = undefined;
    },
    flush() {
      if (pending !== undefined) report(pending);
      pending = undefined;
    },
  };
}

/**
 * `tidings projections rebuild <name>… | --all`: each projection in turn, from the first event into shadow
 * tables while the live ones keep serving, then switched in one transaction (docs/operations.md).
 */
export async function projectionsRebuild(runtime: Runtime, choice: ProjectionsChoice, out: CliOutput): Promise<number> {
  for (const projection of chosen(choice, "projections rebuild")) {
    const progress = throttled<RebuildProgress>((p) =>
      choice.json ? out.out(JSON.stringify({ type: "progress", ...p, position: formatPosition(p.position) })) : out.err(progressLine(p)),
    );
    const result = await rebuildProjection({
      store: runtime.store,
      database: runtime.database,
      projection,
      onProgress: (p) => progress.next(p),
    });
    progress.flush();
    const name = projection.name;
    if (choice.json) {
      const { checksum, position, ...rest } = result;
      out.out(JSON.stringify({ type: "rebuilt", projection: name, ...rest, position: formatPosition(position), ...checksum }));
      continue;
    }
    out.out(`rebuilt ${name}: ${result.events} events in ${result.seconds.toFixed(1)} s (${Math.round(result.eventsPerSecond)} events/s)`);
    for (const [table, sum] of Object.entries(result.checksum.tables)) out.out(`  ${table}: ${sum}`);
    out.out(`checksum ${result.checksum.checksum}`);
  }
  return 0;
}

/**
 * `tidings projections verify <name>… | --all`: replays each projection and compares it with its live
 * tables at the live checkpoint; exits 1 when any row differs, naming them.
 */
export async function projectionsVerify(runtime: Runtime, choice: ProjectionsChoice, out: CliOutput): Promise<number> {
  let differing = 0;
  for (const projection of chosen(choice, "projections verify")) {
    const progress = throttled<{ events: number }>((p) =>
      choice.json
        ? out.out(JSON.stringify({ type: "progress", projection: projection.name, events: p.events }))
        : out.err(`verifying ${projection.name}: ${p.events} events replayed`),
    );
    const result = await verifyProjection({
      store: runtime.store,
      database: runtime.database,
      projection,
      onProgress: (p) => progress.next(p),
    });
    progress.flush();
    if (result.differences > 0) differing++;
    const at = formatPosition(result.position);
    if (choice.json) {
      out.out(JSON.stringify({ type: "verified", ...result, position: at }));
      continue;
    }
    if (result.differences === 0) {
      out.out(`${projection.name}: equal to a replay of ${result.events} events at ${at} (${result.seconds.toFixed(1)} s)`);
      continue;
    }
    out.out(`${projection.name}: ${result.differences} rows differ from a replay of ${result.events} events at ${at}`);
    for (const row of result.rows) out.out(`  ${differenceLine(row)}`);
    const named = result.rows.length;
    if (named < result.differences) out.out(`  … and ${result.differences - named} more`);
  }
  return differing > 0 ? 1 : 0;
}

function differenceLine(row: RowDifference): string {
  const key = Object.entries(row.key)
    .map(([c, v]) => `${c}=${JSON.stringify(v)}`)
    .join(", ");
  if (!row.live) return `${row.table} (${key}): missing from the live table`;
  if (!row.replay) return `${row.table} (${key}): in the live table only`;
  const columns = Object.entries(row.columns)
    .map(([c, v]) => `${c} live ${JSON.stringify(v.live)} replay ${JSON.stringify(v.replay)}`)
    .join("; ");
  return `${row.table} (${key}): ${columns}`;
}

export function progressLine(p: RebuildProgress, width = 30): string {
  const filled = Math.round(Math.min(1, Math.max(0, p.fraction)) * width);
  const eta = p.etaSeconds === undefined ? "--" : `${Math.ceil(p.etaSeconds)} s`;
  const bar = `[${"#".repeat(filled)}${"-".repeat(width - filled)}] ${(p.fraction * 100).toFixed(0).padStart(3)}%`;
  return `${p.projection} ${bar} ${p.events} events ${Math.round(p.eventsPerSecond)} events/s ETA ${eta}`;
}
