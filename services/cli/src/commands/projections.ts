import type { Config, Logger } from "@tidings/core";
import { projectionStatus, rebuildProjection, type RebuildProgress } from "@tidings/projections";
import { openRuntime } from "../runtime.js";
import { findProjection, projections } from "../projections.js";
import { UsageError } from "../usageError.js";
import { printTable } from "../table.js";

/** `tidings projections status`: one line per projection, checkpoint, lag and state. */
export async function projectionsStatus(config: Config, logger: Logger, json: boolean): Promise<void> {
  const runtime = await openRuntime(config, logger);
  try {
    const statuses = await projectionStatus({ store: runtime.store, database: runtime.database, projections });
    if (json) {
      for (const s of statuses) console.log(JSON.stringify(s));
      return;
    }
    const rows = statuses.map((s) => [
      s.name,
      `v${s.liveVersion ?? "-"}${s.liveVersion !== s.version ? `→v${s.version}` : ""}`,
      s.state,
      s.checkpoint ?? "-",
      `${s.lagEvents}${s.lagCapped ? "+" : ""} events`,
      `${s.lagSeconds.toFixed(1)} s`,
      s.rebuild ? `rebuilding v${s.rebuild.version} ${(s.rebuild.fraction * 100).toFixed(0)}%` : "",
    ]);
    printTable(["projection", "version", "state", "checkpoint", "lag", "lag age", ""], rows);
  } finally {
    await runtime.close();
  }
}

/** `tidings projections rebuild <name>`: rebuilds from the first event with a progress bar, then prints the checksum. */
export async function projectionsRebuild(config: Config, logger: Logger, name: string): Promise<void> {
  const projection = findProjection(name);
  if (!projection) throw new UsageError(`no projection named "${name}"; known: ${projections.map((p) => p.name).join(", ")}`);
  const runtime = await openRuntime(config, logger);
  try {
    const result = await rebuildProjection({
      store: runtime.store,
      database: runtime.database,
      projection,
      onProgress: (p) => process.stderr.write(`\r${progressLine(p)}`),
    });
    process.stderr.write("\n");
    console.log(
      `rebuilt ${name}: ${result.events} events in ${result.seconds.toFixed(1)} s (${Math.round(result.eventsPerSecond)} events/s)`,
    );
    for (const [table, sum] of Object.entries(result.checksum.tables)) console.log(`  ${table}: ${sum}`);
    console.log(`checksum ${result.checksum.checksum}`);
  } finally {
    await runtime.close();
  }
}

export function progressLine(p: RebuildProgress, width = 30): string {
  const filled = Math.round(Math.min(1, Math.max(0, p.fraction)) * width);
  const eta = p.etaSeconds === undefined ? "--" : `${Math.ceil(p.etaSeconds)} s`;
  return `[${"#".repeat(filled)}${"-".repeat(width - filled)}] ${(p.fraction * 100).toFixed(0).padStart(3)}% ${p.events} events ${Math.round(p.eventsPerSecond)} events/s ETA ${eta}`;
}
