import {
  comparePositions,
  formatPosition,
  parsePosition,
  START,
  streamCategory,
  type EventStore,
  type Position,
  type RecordedEvent,
} from "../port.js";
import { ERASURE_STREAM, SEAL_STREAM } from "./records.js";
import { allEvents, committedHead } from "./storeReading.js";

export interface ExportOptions {
  /** Exclusive: resume after the last position a previous export printed. */
  after?: Position;
  /** Stop at the first event created after this time. */
  until?: Date;
  category?: string[];
  type?: string[];
  pageSize?: number;
  /** Write the header line that tells `audit verify --file` what the export holds (a new file). */
  header?: boolean;
}

/** The first line of an export: what it covers, so a check of the file knows what it cannot vouch for. */
export interface ExportHeader {
  tidingsAuditExport: 1;
  after: string;
  until: string | null;
  category: string[] | null;
  type: string[] | null;
}

/** One event of an export, one JSON line in commit order. */
export interface ExportLine {
  position: string;
  streamId: string;
  revision: string;
  id: string;
  type: string;
  createdAt: string;
  hash: string | null;
  metadata: unknown;
  data: unknown;
}

/**
 * Writes `$all` (or the events of some categories or types) as JSON lines, a page at a time. Seals and
 * erasure records always go in, so the file can be checked offline (docs/operations.md, "Integrity").
 * `write` gets whole lines, each ending in a newline, a page of them at a time: a write per line made a
 * file's back-pressure the export's pace. It may return a promise, for that back-pressure; `progress`
 * hears the last position written.
 */
export async function exportStore(
  store: EventStore,
  options: ExportOptions,
  write: (lines: string) => void | Promise<void>,
  progress?: (position: Position, events: number) => void,
): Promise<{ events: number; last: Position | undefined; stoppedShort?: Position }> {
  const after = options.after ?? START;
  if (options.header) {
    const header: ExportHeader = {
      tidingsAuditExport: 1,
      after: formatPosition(after),
      until: options.until?.toISOString() ?? null,
      category: options.category ?? null,
      type: options.type ?? null,
    };
    await write(`${JSON.stringify(header)}\n`);
  }
  const categories = options.category && new Set(options.category);
  const types = options.type && new Set(options.type);
  const wanted = (e: RecordedEvent) =>
    e.streamId === SEAL_STREAM ||
    e.streamId === ERASURE_STREAM ||
    ((!categories || categories.has(streamCategory(e.streamId))) && (!types || types.has(e.type)));
  let events = 0;
  let last: Position | undefined;
  const pageSize = options.pageSize ?? 5_000;
  let lines = "";
  const { until, committed } = await committedHead(store);
  for await (const event of allEvents(store, after, until, pageSize)) {
    if (options.until && event.createdAt > options.until) break;
    last = event.position;
    if (!wanted(event)) continue;
    lines += `${JSON.stringify(toLine(event))}\n`;
    if (++events % pageSize === 0) {
      await write(lines);
      lines = "";
      progress?.(event.position, events);
    }
  }
  if (lines) await write(lines);
  if (last) progress?.(last, events);
  return { events, last, ...(comparePositions(until, committed) < 0 && { stoppedShort: committed }) };
}

function toLine(e: RecordedEvent): ExportLine {
  return {
    position: formatPosition(e.position),
    streamId: e.streamId,
    revision: e.revision.toString(),
    id: e.id,
    type: e.type,
    createdAt: e.createdAt.toISOString(),
    hash: e.hash ?? null,
    metadata: e.metadata,
    data: e.data,
  };
}

export function fromLine(line: ExportLine): RecordedEvent {
  return {
    id: line.id,
    type: line.type,
    data: line.data,
    metadata: (line.metadata ?? {}) as RecordedEvent["metadata"],
    streamId: line.streamId,
    revision: BigInt(line.revision),
    position: parsePosition(line.position),
    createdAt: new Date(line.createdAt),
    ...(line.hash !== null && { hash: line.hash }),
  };
}
