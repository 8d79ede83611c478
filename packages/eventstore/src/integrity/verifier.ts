import { comparePositions, formatPosition, START, type Position, type RecordedEvent } from "../port.js";
import { canonicalJson } from "./canonicalJson.js";
import { ErasedMerge } from "./erasedMerge.js";
import { contentHash, GENESIS, linkHash } from "./hashes.js";
import type { StreamHead } from "./merkle.js";
import { isErasure, isSeal, type ChainEntry, type ErasureData, type SealData } from "./records.js";
import { sealBody } from "./seal.js";
import { verifySignature } from "./signing.js";
import { Stretch, type StretchSummary } from "./stretch.js";
import { entryOf } from "./storeReading.js";
import { type IntegrityBreak, type IntegrityReport, sealBreak } from "./report.js";

/** The heads a store keeps beside its events (PostgreSQL's stream rows), to find a cut-off tail no seal covers yet. */
export interface StoreHeads {
  heads(): AsyncIterable<{ streamId: string; revision: bigint; hash: string }>;
  /** Whether the stream has this revision now: a head past the walk's end may just be newer. */
  hasRevision(streamId: string, revision: bigint): Promise<boolean>;
}

export interface VerifierOptions {
  /** The public key the seals must verify with; without one, each seal's own key is used (and said so). */
  publicKey?: string;
  /** Every seal's `until`, known before the walk reaches the seal itself. */
  seals: { sequence: number; until: Position }[];
  /** The entries erasure records stand for. */
  erased: ChainEntry[];
  /** The walk starts after this position (START: the whole of `$all`). */
  after: Position;
  /** False when the input leaves events out (a filtered export): the seals' stretches cannot be recounted. */
  complete: boolean;
  /** True when streams may have gaps (an export filtered by type): a gap re-anchors the chain instead of breaking it. */
  gaps?: boolean;
}

/**
 * Walks `$all` (or an export of it) once, in order, and checks each link of each stream's chain and each
 * seal: its signature, its place after the previous seal, and its stretch's count, digest and heads. It
 * keeps the heads of streams, not events. The first break ends the walk; events after the last seal are
 * counted, not judged.
 */
export class Verifier {
  private readonly heads = new Map<string, StreamHead>();
  /** Streams erased and not written since, with their last revision then. */
  private readonly erasedStreams = new Map<string, bigint>();
  /** Revisions that came before their predecessor (concurrent appends commit out of revision order). */
  private readonly parked = new Map<string, Map<bigint, ChainEntry>>();
  private readonly merge: ErasedMerge;
  private readonly stretch = new Stretch();
  private readonly summaries = new Map<number, StretchSummary | "partial">();
  private boundary = 0;
  private lastSeal: { sequence: number; hash: string | undefined; until: string } | undefined;
  private failure: IntegrityBreak | undefined;
  private readonly counts = { events: 0, erased: 0, sealsChecked: 0, sealsPartial: 0, unanchored: 0 };
  private sinceSeal = 0;
  private last: Position;

  constructor(private readonly options: VerifierOptions) {
    this.merge = new ErasedMerge(options.erased.filter((e) => comparePositions(e.position, options.after) > 0));
    this.last = options.after;
  }

  get broken(): IntegrityBreak | undefined {
    return this.failure;
  }

  feed(event: RecordedEvent): void {
    const { entries, here } = this.merge.before(event.position);
    for (const entry of entries) this.entry(entry);
    // An erased event still in `$all` (EventStoreDB keeps it until a scavenge) counts as erased, as it will once gone.
    this.entry(here ? { ...entryOf(event), erased: true } : entryOf(event));
  }

  /**
   * Ends the walk, at `until` when it stopped there; `store` compares the heads the store keeps beside the
   * events, where it keeps them.
   */
  async finish(store?: StoreHeads, until?: Position): Promise<IntegrityReport> {
    for (const entry of this.merge.rest(until)) this.entry(entry);
    for (const [streamId, parked] of this.parked) {
      if (this.failure) break;
      const first = [...parked.values()].sort((a, b) => comparePositions(a.position, b.position))[0]!;
      const have = this.heads.get(streamId)?.revision ?? -1n;
      this.fail(
        { kind: "missing", streamId, revision: have + 1n, position: formatPosition(first.position) },
        `revision ${have + 1n} is missing: the stream goes on at revision ${first.revision} without it`,
      );
    }
    if (store && !this.failure && this.options.complete && comparePositions(this.options.after, START) === 0) {
      for await (const { streamId, revision, hash } of store.heads()) {
        const head = { revision, hash };
        const walked = this.heads.get(streamId);
        if (walked?.revision === head.revision && walked.hash === head.hash) continue;
        // Written after the walk's end (or not yet readable then): the stream goes on past what the walk saw.
        const next = walked ? walked.revision + 1n : 0n;
        if (head.revision >= next && (await store.hasRevision(streamId, next))) continue;
        const seen = walked ? `its events end at revision ${walked.revision}` : "none of its events are there";
        this.fail(
          { kind: "missing", streamId, revision: (walked?.revision ?? -1n) + 1n },
          `the store's head of the stream is revision ${head.revision}, but ${seen}: events were cut off`,
        );
        break;
      }
    }
    return this.report();
  }

  report(): IntegrityReport {
    return {
      ok: !this.failure,
      ...this.counts,
      streams: this.heads.size,
      seals: this.counts.sealsChecked,
      unsealed: this.sinceSeal,
      lastSeal: this.lastSeal && { sequence: this.lastSeal.sequence, until: this.lastSeal.until },
      pinnedKey: this.options.publicKey !== undefined,
      ...(this.failure && { break: this.failure }),
    };
  }

  private entry(entry: ChainEntry): void {
    if (this.failure) return;
    this.closeStretches(entry.position);
    this.stretch.add(entry);
    this.sinceSeal++;
    this.last = entry.position;
    this.counts.events++;
    if (entry.erased) this.counts.erased++;
    this.link(entry);
    if (this.failure || !entry.event) return;
    if (isSeal(entry.event)) this.checkSeal(entry.event);
    else if (isErasure(entry.event)) this.checkErasure(entry.event);
  }

  private closeStretches(position: Position): void {
    const seals = this.options.seals;
    while (this.boundary < seals.length && comparePositions(position, seals[this.boundary]!.until) > 0) {
      const start = this.boundary > 0 ? seals[this.boundary - 1]!.until : START;
      const whole = this.options.complete && comparePositions(start, this.options.after) >= 0;
      const summary = this.stretch.close();
      this.summaries.set(seals[this.boundary]!.sequence, whole ? summary : "partial");
      this.boundary++;
    }
  }

  private link(entry: ChainEntry): void {
    const { streamId, revision } = entry;
    const head = this.heads.get(streamId);
    const erasedAt = this.erasedStreams.get(streamId);
    if (!head) {
      const fresh = revision === 0n || (erasedAt !== undefined && revision === erasedAt + 1n);
      const unanchored = this.options.gaps || comparePositions(this.options.after, START) > 0 || !this.options.complete;
      if (!fresh && !(unanchored && erasedAt === undefined)) return this.park(entry);
      if (!fresh) {
        this.counts.unanchored++;
        return this.accept(entry);
      }
      return this.check(entry, GENESIS);
    }
    if (revision <= head.revision) {
      return this.fail(
        at(entry, "reordered"),
        `revision ${revision} comes again after revision ${head.revision}: events were reordered or copied`,
      );
    }
    if (revision > head.revision + 1n) {
      if (this.options.gaps) {
        this.counts.unanchored++;
        return this.accept(entry);
      }
      return this.park(entry);
    }
    this.check(entry, head.hash);
  }

  private check(entry: ChainEntry, previous: string): void {
    const event = entry.event;
    if (event) {
      if (!entry.hash) return this.fail(at(entry), "the event has no hash: it was written outside the store");
      const expected = linkHash(previous, entry.streamId, entry.revision, contentHash(event));
      if (expected !== entry.hash) {
        return this.fail(at(entry), "the event does not match its hash: its content, place or predecessor was changed");
      }
    }
    this.accept(entry);
  }

  private accept(entry: ChainEntry): void {
    this.heads.set(entry.streamId, { revision: entry.revision, hash: entry.hash ?? "" });
    this.erasedStreams.delete(entry.streamId);
    const parked = this.parked.get(entry.streamId);
    const next = parked?.get(entry.revision + 1n);
    if (!parked || !next) return;
    parked.delete(next.revision);
    if (parked.size === 0) this.parked.delete(entry.streamId);
    this.check(next, entry.hash ?? "");
  }

  private park(entry: ChainEntry): void {
    let parked = this.parked.get(entry.streamId);
    if (!parked) this.parked.set(entry.streamId, (parked = new Map()));
    parked.set(entry.revision, entry);
  }

  private checkSeal(event: RecordedEvent): void {
    const seal = event.data as SealData;
    const name = `seal #${String(seal.sequence)}`;
    const key = this.options.publicKey ?? seal.publicKey;
    if (typeof seal.signature !== "string" || !verifySignature(key, canonicalJson(sealBody(seal)), seal.signature)) {
      return this.fail(
        sealBreak(event, seal),
        `${name} does not verify with the public key ${key}: it was changed or not signed by this store`,
      );
    }
    const last = this.lastSeal;
    const follows = last
      ? seal.sequence === last.sequence + 1 && seal.previous === (last.hash ?? null) && seal.from === last.until
      : comparePositions(this.options.after, START) > 0 || (seal.sequence === 0 && seal.previous === null && seal.from === null);
    if (!follows) {
      const after = last ? `seal #${last.sequence}` : "the start of the store";
      return this.fail(sealBreak(event, seal), `${name} does not follow ${after}: a seal is missing or was replaced`);
    }
    const summary = this.summaries.get(seal.sequence);
    if (summary === "partial") this.counts.sealsPartial++;
    else if (!summary) return this.fail(sealBreak(event, seal), `${name} is not in the seal stream's order`);
    else {
      const stretch = `from ${seal.from ?? "the start"} to ${seal.until}`;
      const problem =
        summary.events !== seal.events
          ? `covers ${seal.events} events ${stretch}, but ${summary.events} are there: events were deleted or added`
          : summary.digest !== seal.digest
            ? `covers ${seal.events} events ${stretch} whose hashes or order changed: events were changed, replaced or reordered`
            : summary.heads.root !== seal.heads.root || summary.heads.streams !== seal.heads.streams
              ? `names stream heads ${stretch} that differ from the streams there`
              : undefined;
      if (problem) return this.fail(sealBreak(event, seal), `${name} ${problem}${this.parkedNote()}`);
      this.counts.sealsChecked++;
    }
    this.lastSeal = { sequence: seal.sequence, hash: event.hash, until: seal.until };
    this.sinceSeal = this.stretch.size;
  }

  private checkErasure(event: RecordedEvent): void {
    const erasure = event.data as ErasureData;
    const lastErased = erasure.events.at(-1);
    const head = this.heads.get(erasure.stream);
    if (lastErased && (head?.revision.toString() !== lastErased.revision || head.hash !== lastErased.hash)) {
      return this.fail(
        at(entryOf(event), "erased"),
        `the erasure record of ${erasure.stream} names revision ${lastErased.revision}, which is not the stream's head`,
      );
    }
    this.heads.delete(erasure.stream);
    if (lastErased) this.erasedStreams.set(erasure.stream, BigInt(lastErased.revision));
  }

  private parkedNote(): string {
    const first = [...this.parked.entries()][0];
    if (!first) return "";
    const have = this.heads.get(first[0])?.revision ?? -1n;
    return `; stream ${first[0]} is missing revision ${have + 1n}`;
  }

  private fail(where: Omit<IntegrityBreak, "message">, message: string): void {
    this.failure ??= { ...where, message };
  }
}

function at(entry: ChainEntry, kind: IntegrityBreak["kind"] = "changed"): Omit<IntegrityBreak, "message"> {
  return { kind, streamId: entry.streamId, revision: entry.revision, position: formatPosition(entry.position) };
}
