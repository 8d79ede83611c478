import { createWriteStream, existsSync, type WriteStream } from "node:fs";
import { once } from "node:events";
import { exportStore, formatPosition, parsePosition, type EventStore } from "@tidings/eventstore";
import type { CliOutput } from "../cliOutput.js";
import { UsageError } from "../usageError.js";

export interface AuditExportOptions {
  from?: string;
  until?: string;
  category?: string[];
  type?: string[];
  out?: string;
}

/**
 * `tidings audit export`: the events in commit order as JSON lines, with hash, position and metadata
 * (docs/operations.md, "Integrity"). Progress and the last position go to stderr; run again with
 * `--from` that position, and the same `--out`, to resume where it stopped.
 */
export async function auditExport(store: EventStore, options: AuditExportOptions, output: CliOutput): Promise<number> {
  const until = options.until === undefined ? undefined : new Date(options.until);
  if (until && Number.isNaN(until.getTime()))
    throw new UsageError(`--until must be a time like 2026-01-31T00:00:00Z, not "${options.until}"`);
  let after;
  try {
    after = options.from === undefined ? undefined : parsePosition(options.from);
  } catch {
    throw new UsageError(`--from must be a position like 123/456 (as a previous export printed), not "${options.from}"`);
  }
  const resuming = options.from !== undefined && options.out !== undefined && existsSync(options.out);
  const file = options.out === undefined ? undefined : createWriteStream(options.out, { flags: resuming ? "a" : "w" });
  const write = file ? (lines: string) => toFile(file, lines) : (lines: string) => output.out(lines.slice(0, -1));
  try {
    const { events, last, stoppedShort } = await exportStore(
      store,
      {
        ...(after && { after }),
        ...(until && { until }),
        ...(options.category && { category: options.category }),
        ...(options.type && { type: options.type }),
        header: !resuming,
      },
      write,
      (position, count) => output.err(`exported ${count} events; last position ${formatPosition(position)}`),
    );
    output.err(`done: ${events} events${last ? `; resume with --from ${formatPosition(last)}` : ""}`);
    if (stoppedShort)
      output.err(
        `stopped short: events committed up to ${formatPosition(stoppedShort)} were not readable within 60 s (a transaction stayed open elsewhere on the server); resume later with --from`,
      );
  } finally {
    if (file) {
      file.end();
      await once(file, "close");
    }
  }
  return 0;
}

async function toFile(file: WriteStream, lines: string): Promise<void> {
  if (!file.write(lines)) await once(file, "drain");
}
