import { formatPosition, type RecordedEvent } from "../port.js";
import type { SealData } from "./records.js";

/** The first place where the store and its hashes disagree. */
export interface IntegrityBreak {
  /** changed: an event no longer matches its hash; missing: revisions or events are gone; reordered: a
   * revision comes twice or out of place; seal: a seal does not verify or does not match what it covers;
   * erased: an erasure record does not match the stream it names. */
  kind: "changed" | "missing" | "reordered" | "seal" | "erased";
  streamId?: string;
  revision?: bigint;
  position?: string;
  message: string;
}

export interface IntegrityReport {
  ok: boolean;
  /** Events walked, erased ones (known by their erasure records only) included. */
  events: number;
  erased: number;
  streams: number;
  /** Seals whose stretch was recounted and matched. */
  seals: number;
  /** Seals whose signature and order were checked but whose stretch began before the walk or was filtered out. */
  sealsPartial: number;
  /** Events after the last seal: their links were checked, but no seal vouches for them yet. */
  unsealed: number;
  /** Events whose predecessor was outside the walk (a walk from a position, a filtered export). */
  unanchored: number;
  lastSeal?: { sequence: number; until: string };
  /** False when seals were checked with each seal's own key, not one the auditor gave. */
  pinnedKey: boolean;
  break?: IntegrityBreak;
  /**
   * The walk ended short of the events committed when it began, up to this position: a transaction open
   * elsewhere on the PostgreSQL server kept them unreadable past the wait. What was walked is checked.
   */
  stoppedShort?: string;
}

export function sealBreak(event: RecordedEvent, seal: SealData): Omit<IntegrityBreak, "message"> {
  return { kind: "seal", streamId: event.streamId, revision: event.revision, position: seal.until ?? formatPosition(event.position) };
}

/** The report as lines for a person: the break first, or the counts. */
export function describeReport(report: IntegrityReport): string[] {
  const lines: string[] = [];
  if (report.break) {
    const b = report.break;
    const where = [
      b.streamId && `stream ${b.streamId}`,
      b.revision !== undefined && `revision ${b.revision}`,
      b.position && `at ${b.position}`,
    ]
      .filter(Boolean)
      .join(", ");
    lines.push(`BROKEN (${b.kind})${where ? ` ${where}` : ""}: ${b.message}`);
  } else lines.push(`intact: ${report.events} events in ${report.streams} streams, ${report.seals} seals checked`);
  if (report.erased) lines.push(`${report.erased} events were erased (deleted streams); their hashes are kept in erasure records`);
  if (report.sealsPartial)
    lines.push(`${report.sealsPartial} seals were checked by signature only: their stretch began before this walk or was filtered out`);
  if (report.unanchored)
    lines.push(`${report.unanchored} events follow a predecessor outside this walk: their links to it were not checked`);
  if (report.lastSeal) lines.push(`last seal #${report.lastSeal.sequence} covers $all up to ${report.lastSeal.until}`);
  else lines.push("no seal: nothing here is vouched for by a signature yet");
  if (report.unsealed)
    lines.push(`${report.unsealed} events are newer than the last seal: their chain was checked, no seal vouches for them yet`);
  if (report.stoppedShort)
    lines.push(
      `stopped short: events committed up to ${report.stoppedShort} were not readable within 60 s (a transaction stayed open elsewhere on the server); run verify again`,
    );
  if (!report.pinnedKey) lines.push("the seals were checked with the key each names; pass --public-key to pin the store's key");
  return lines;
}
