import { comparePositions, parsePosition, START, type Position, type RecordedEvent } from "../port.js";
import { fromLine, type ExportHeader, type ExportLine } from "./exportStore.js";
import { erasedEntries, isErasure, isSeal, type ChainEntry, type ErasureData, type SealData } from "./records.js";
import type { IntegrityReport } from "./report.js";
import { Verifier } from "./verifier.js";

export interface ExportCheck {
  report: IntegrityReport;
  /** What the file cannot vouch for, in words, from its header. */
  limits: string[];
}

/**
 * Checks an export offline (docs/operations.md, "Integrity"): `lines` is called twice, once to learn the
 * seals and erasure records, once to walk. Chains are checked within the streams the file holds; seals
 * by signature always, and by recounting their stretch only when the file holds all of it.
 */
export async function verifyExport(lines: () => AsyncIterable<string>, publicKey?: string): Promise<ExportCheck> {
  let header: ExportHeader | undefined;
  let first: Position | undefined;
  const seals: { sequence: number; until: Position }[] = [];
  const erased: ChainEntry[] = [];
  for await (const text of lines()) {
    const parsed = parse(text);
    if (!parsed) continue;
    if ("tidingsAuditExport" in parsed) {
      header ??= parsed;
      continue;
    }
    const event = fromLine(parsed);
    first ??= event.position;
    if (isSeal(event)) seals.push({ sequence: (event.data as SealData).sequence, until: parsePosition((event.data as SealData).until) });
    if (isErasure(event)) erased.push(...erasedEntries(event.data as ErasureData));
  }
  const filtered = !header || header.category !== null || header.type !== null;
  const after = header ? parsePosition(header.after) : START;
  const verifier = new Verifier({
    ...(publicKey !== undefined && { publicKey }),
    seals,
    erased,
    after,
    complete: !filtered,
    gaps: !header || header.type !== null,
  });
  let previous: RecordedEvent | undefined;
  for await (const text of lines()) {
    const parsed = parse(text);
    if (!parsed || "tidingsAuditExport" in parsed) continue;
    const event = fromLine(parsed);
    if (previous && comparePositions(event.position, previous.position) <= 0) {
      return { report: { ...verifier.report(), ok: false, break: outOfOrder(event) }, limits: limitsOf(header) };
    }
    previous = event;
    verifier.feed(event);
    if (verifier.broken) break;
  }
  return { report: await verifier.finish(), limits: limitsOf(header) };
}

function parse(text: string): ExportLine | ExportHeader | undefined {
  return text.trim() ? (JSON.parse(text) as ExportLine | ExportHeader) : undefined;
}

function outOfOrder(event: RecordedEvent): IntegrityReport["break"] {
  return {
    kind: "reordered",
    streamId: event.streamId,
    revision: event.revision,
    message: "the line is not after the one before it in commit order: the file was reordered",
  };
}

function limitsOf(header: ExportHeader | undefined): string[] {
  if (!header) return ["the file has no export header: it may have been cut at its start, so seals are checked by signature only"];
  const limits: string[] = [];
  if (header.after !== "0/0") limits.push(`the export starts after ${header.after}: events before it and links to them are not checked`);
  if (header.category || header.type) {
    const what = [header.category && `categories ${header.category.join(", ")}`, header.type && `types ${header.type.join(", ")}`];
    limits.push(
      `the export holds only ${what.filter(Boolean).join(" and ")}: seals are checked by signature, not recounted, so it cannot show that events of other streams are all there, nor that none was removed from its streams between seals`,
    );
  }
  if (header.type)
    limits.push("with a type filter a stream's chain has gaps: only links between consecutive events in the file are checked");
  if (header.until) limits.push(`the export stops at ${header.until}: later events, and seals after them, are not in it`);
  return limits;
}
