import { randomUUID } from "node:crypto";
import { afterEach, describe, expect, it } from "vitest";
import { sealKeys } from "../integrity/signing.js";
import { sealStore } from "../integrity/seal.js";
import { verifyStore } from "../integrity/verifyStore.js";
import { committedHead } from "../integrity/storeReading.js";
import { exportStore, type ExportLine, type ExportOptions } from "../integrity/exportStore.js";
import { contentHash, GENESIS, linkHash } from "../integrity/hashes.js";
import type { IntegrityReport } from "../integrity/report.js";
import { comparePositions, START, type EventStore, type Position } from "../port.js";
import { aStreamId, events } from "./contractBuilders.js";

/** Changes made behind the store's back, where the adapter's storage allows them (PostgreSQL: SQL). */
export interface Tampering {
  changeData(streamId: string, revision: bigint): Promise<void>;
  changeMetadata(streamId: string, revision: bigint): Promise<void>;
  deleteEvent(streamId: string, revision: bigint): Promise<void>;
  /** Deletes the stream's events and whatever else the store keeps of it. */
  deleteStream(streamId: string): Promise<void>;
  /** Deletes the last `count` events of `$all`. */
  cutTail(count: number): Promise<void>;
  swapRevisions(streamId: string, a: bigint, b: bigint): Promise<void>;
  swapPositions(a: Position, b: Position): Promise<void>;
}

export interface IntegrityFixture {
  store: EventStore;
  /** Where this fixture's own events begin in `$all` (START for a store of its own). */
  after: Position;
  tampering?: Tampering;
  /** As `EventStoreFixture.another`: a second instance over the same storage, for races between them. */
  another?(): EventStore;
  dispose(): Promise<void>;
}

const keys = sealKeys("integrity contract secret");

/**
 * Waits until every committed event is readable: on a PostgreSQL server shared with other work, a
 * transaction open elsewhere holds `$all`'s readable head back, and a seal or a walk stops there.
 */
async function readable(store: EventStore): Promise<void> {
  const { until, committed } = await committedHead(store);
  if (comparePositions(until, committed) < 0) throw new Error("the store's readable head did not reach its committed events within 60 s");
}

/** Three streams, a seal, two more events after it: what every case starts from. */
async function populate(store: EventStore) {
  const category = `integrity${randomUUID().replaceAll("-", "").slice(0, 8)}`;
  const [a, b, c] = [aStreamId(category), aStreamId(category), aStreamId(category)];
  await store.append(a, events(5), "no_stream");
  await store.append(b, events(3), "no_stream");
  await store.append(c, events(4), "no_stream");
  await readable(store);
  const sealed = await sealStore(store, { keys, force: true });
  if (!sealed.sealed) throw new Error("the first seal was not written");
  await store.append(a, events(2), 4n);
  return { a, b, c };
}

/**
 * Hash chains, seals, erasures and tampering (docs/operations.md, "Integrity"). Each case gets a store of
 * its own from `createFixture`; cases that alter storage behind the store run where the fixture can.
 */
export function integrityContract(adapter: string, createFixture: () => Promise<IntegrityFixture>): void {
  describe(`event store integrity: ${adapter}`, () => {
    let fixture: IntegrityFixture | undefined;
    const open = async () => (fixture = await createFixture());
    const verify = async (f: IntegrityFixture): Promise<IntegrityReport> => {
      await readable(f.store);
      return verifyStore(f.store, { publicKey: keys.publicKey, after: f.after });
    };
    afterEach(async () => {
      await fixture?.dispose();
      fixture = undefined;
    });

    it("chains every event to its stream's previous one", async () => {
      const f = await open();
      const stream = aStreamId("chained");
      const written = events(3);
      await f.store.append(stream, written.slice(0, 1), "no_stream");
      await f.store.append(stream, written.slice(1), 0n);
      const read = await f.store.readStream(stream);
      let previous = GENESIS;
      for (const event of read) {
        expect(event.hash).toBe(linkHash(previous, stream, event.revision, contentHash(written[Number(event.revision)]!)));
        previous = event.hash!;
      }
    });

    it("chains the events of the winner of racing appends at one revision to the head it found", async () => {
      const f = await open();
      const stream = aStreamId("raced");
      const first = events(1);
      await f.store.append(stream, first, "no_stream");
      const batches = Array.from({ length: 4 }, () => events(2));
      const racers = batches.map((_, i) => (i === 0 ? f.store : (f.another?.() ?? f.store)));
      const outcomes = await Promise.allSettled(batches.map((batch, i) => racers[i]!.append(stream, batch, 0n, { immediate: true })));
      const written = [...first, ...batches[outcomes.findIndex((o) => o.status === "fulfilled")]!];
      let previous = GENESIS;
      for (const event of await f.store.readStream(stream)) {
        expect(event.hash).toBe(linkHash(previous, stream, event.revision, contentHash(written[Number(event.revision)]!)));
        previous = event.hash!;
      }
      expect(previous).not.toBe(GENESIS);
    });

    it("passes an untouched store with seals and an erasure, and counts what no seal covers yet", async () => {
      const f = await open();
      const { b } = await populate(f.store);
      await f.store.deleteStream(b);
      await readable(f.store);
      expect((await sealStore(f.store, { keys })).sealed).toBe(true);
      await f.store.append(aStreamId("late"), events(3), "no_stream");
      const report = await verify(f);
      expect(report.break).toBeUndefined();
      // Unsealed: the last seal itself and the three events after it.
      expect(report).toMatchObject({ ok: true, erased: 3, unsealed: 4 });
      // A store shared with other runs (EventStoreDB) has seals before this case began: its first is checked by signature.
      expect(report.seals + report.sealsPartial).toBe(2);
    });

    it("does not seal again when nothing but the last seal came since", async () => {
      const f = await open();
      await populate(f.store);
      await readable(f.store);
      expect((await sealStore(f.store, { keys })).sealed).toBe(true);
      await readable(f.store);
      expect(await sealStore(f.store, { keys })).toMatchObject({ sealed: false, reason: "nothing new" });
    });

    it("seals a stretch longer than a seal may cover in several seals, each of at most maxEvents, which verify as one chain", async () => {
      const f = await open();
      await populate(f.store);
      await f.store.append(aStreamId("long"), events(7), "no_stream");
      await readable(f.store);
      const covered: number[] = [];
      for (let more = true; more;) {
        const outcome = await sealStore(f.store, { keys, maxEvents: 4 });
        if (!outcome.sealed) throw new Error(`not sealed: ${outcome.reason}`);
        covered.push(outcome.seal.events);
        more = outcome.more;
      }
      // The first seal, the two events after it and the seven: ten at least (a shared store may hold others' too).
      expect(covered.reduce((a, b) => a + b, 0)).toBeGreaterThanOrEqual(10);
      expect(covered.slice(0, -1).every((n) => n === 4)).toBe(true);
      expect(covered.at(-1)).toBeLessThanOrEqual(4);
      const report = await verify(f);
      expect(report.break).toBeUndefined();
      expect(report.ok).toBe(true);
      expect(report.seals + report.sealsPartial).toBe(1 + covered.length);
    });

    it("fails a seal checked with another key", async () => {
      const f = await open();
      await populate(f.store);
      const report = await verifyStore(f.store, { publicKey: sealKeys("another secret").publicKey, after: f.after });
      expect(report.break).toMatchObject({ kind: "seal" });
    });

    it("walks from a position: the events after it, their links to events before it unchecked, and a change after it found", async (context) => {
      const f = await open();
      const { a, c } = await populate(f.store);
      const [from] = await f.store.readStream(c, { fromRevision: 1n, maxCount: 1 });
      await readable(f.store);
      const walked = await f.store.readAll({ after: from!.position });
      const report = await verifyStore(f.store, { publicKey: keys.publicKey, after: from!.position });
      // After c's revision 1: c's 2 and a's 5 follow events before the position; c's 3, a's 6 and the seal do not.
      const own = comparePositions(f.after, START) === 0;
      expect(report).toMatchObject({ ok: true, ...(own && { sealsPartial: 1, unanchored: 2, events: walked.length }) });
      if (!f.tampering) {
        console.warn(`${adapter}: the change after the position is not made: this store cannot be altered behind the adapter`);
        context.skip();
      }
      await f.tampering!.changeData(a, 6n);
      expect((await verifyStore(f.store, { publicKey: keys.publicKey, after: from!.position })).break).toMatchObject({
        kind: "changed",
        streamId: a,
        revision: 6n,
      });
    });

    it("exports in two parts, the second resumed after the first's last position, as it exports at once; and stops at a time", async () => {
      const f = await open();
      const category = `export${randomUUID().replaceAll("-", "").slice(0, 8)}`;
      await f.store.append(aStreamId(category), events(3), "no_stream");
      await new Promise((resolve) => setTimeout(resolve, 50));
      const between = new Date();
      await new Promise((resolve) => setTimeout(resolve, 50));
      await f.store.append(aStreamId(category), events(2), "no_stream");
      await readable(f.store);
      const exported = async (options: ExportOptions) => {
        let text = "";
        const { last } = await exportStore(f.store, { ...options, category: [category] }, (lines) => void (text += lines));
        // Seals and erasure records always go in; a store shared with other runs may have some.
        const lines = text.split("\n").filter((line) => line && (JSON.parse(line) as ExportLine).streamId.startsWith(category));
        return { lines, last };
      };
      const whole = await exported({ after: f.after });
      expect(whole.lines).toHaveLength(5);
      const first = await exported({ after: f.after, until: between });
      expect(first.lines.map((line) => (JSON.parse(line) as ExportLine).revision)).toEqual(["0", "1", "2"]);
      const rest = await exported({ after: first.last! });
      expect([...first.lines, ...rest.lines]).toEqual(whole.lines);
    });

    type Streams = { a: string; b: string; c: string };
    const tampered = (
      name: string,
      change: (t: Tampering, s: Streams, store: EventStore) => Promise<void>,
      expected: (s: Streams) => object,
    ) =>
      it(`finds ${name}`, async (context) => {
        const f = await open();
        if (!f.tampering) {
          console.warn(`${adapter}: "${name}" skipped: this store cannot be altered behind the adapter`);
          context.skip();
        }
        const streams = await populate(f.store);
        expect((await verify(f)).ok).toBe(true);
        await change(f.tampering!, streams, f.store);
        const report = await verify(f);
        expect(report.ok).toBe(false);
        expect(report.break).toMatchObject(expected(streams));
      });

    tampered(
      "a changed payload",
      (t, s) => t.changeData(s.a, 2n),
      (s) => ({ kind: "changed", streamId: s.a, revision: 2n }),
    );
    tampered(
      "changed metadata",
      (t, s) => t.changeMetadata(s.c, 1n),
      (s) => ({ kind: "changed", streamId: s.c, revision: 1n }),
    );
    tampered(
      "a deleted middle event",
      (t, s) => t.deleteEvent(s.a, 3n),
      (s) => ({ kind: "seal", message: expect.stringContaining(`stream ${s.a} is missing revision 3`) }),
    );
    tampered(
      "a deleted unsealed middle event",
      (t, s) => t.deleteEvent(s.a, 5n),
      (s) => ({ kind: "missing", streamId: s.a, revision: 5n }),
    );
    tampered(
      "a whole stream deleted with its row",
      (t, s) => t.deleteStream(s.b),
      () => ({ kind: "seal", message: expect.stringContaining("events were deleted") }),
    );
    tampered(
      "the tail of $all cut off",
      (t) => t.cutTail(2),
      (s) => ({ kind: "missing", streamId: s.a, revision: 5n }),
    );
    tampered(
      "the tail of $all cut off with the last seal",
      (t) => t.cutTail(3),
      () => ({ kind: "missing", streamId: "integrity-seals" }),
    );
    tampered(
      "two revisions swapped",
      (t, s) => t.swapRevisions(s.c, 1n, 2n),
      (s) => ({ kind: "changed", streamId: s.c, revision: 1n }),
    );
    tampered(
      "two events swapped in $all",
      async (t, s, store) => {
        const [a1] = await store.readStream(s.a, { fromRevision: 1n, maxCount: 1 });
        const [b0] = await store.readStream(s.b, { maxCount: 1 });
        await t.swapPositions(a1!.position, b0!.position);
      },
      () => ({ kind: "seal", message: expect.stringContaining("reordered") }),
    );
  });
}
