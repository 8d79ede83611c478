import { describe, expect, it } from "vitest";
import type { ContractContext } from "./contract.js";
import { aCategory, aStreamId, anEvent, events, expectStrictlyIncreasing, readAllUntil } from "./contractBuilders.js";
import { comparePositions, type RecordedEvent } from "../port.js";

const ids = (read: { id: string }[]) => read.map((e) => e.id);

export function readContract(context: ContractContext): void {
  describe("read", () => {
    it("reads a stream forwards and backwards, from a revision, with maxCount", async () => {
      const store = context.store();
      const stream = aStreamId();
      // Past ten, so an order by revision text instead of number would show.
      const appended = events(12);
      await store.append(stream, appended, "no_stream");
      const revisions = async (options: Parameters<typeof store.readStream>[1]) =>
        (await store.readStream(stream, options)).map((e) => Number(e.revision));

      expect(await revisions({ fromRevision: 3n, maxCount: 4 })).toEqual([3, 4, 5, 6]);
      expect(await revisions({ fromRevision: 8n })).toEqual([8, 9, 10, 11]);
      expect(await revisions({ direction: "backwards" })).toEqual([11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0]);
      expect(await revisions({ direction: "backwards", maxCount: 3 })).toEqual([11, 10, 9]);
      expect(await revisions({ direction: "backwards", fromRevision: 5n, maxCount: 2 })).toEqual([5, 4]);
      expect(await revisions({ direction: "backwards", fromRevision: "end", maxCount: 1 })).toEqual([11]);
      expect(await revisions({ maxCount: 2 })).toEqual([0, 1]);
      expect(ids(await store.readStream(stream))).toEqual(ids(appended));
    });

    it("answers many reads at once, from either end, each with its own stream, in order, up to its own maxCount", async () => {
      const store = context.store();
      // Lengths past ten (a text order would show), one stream missing, and reads of one stream repeated.
      const streams = Array.from({ length: 40 }, (_, i) => ({ id: aStreamId(), appended: events(i % 13) }));
      await Promise.all(streams.filter((s) => s.appended.length > 0).map((s) => store.append(s.id, s.appended, "no_stream")));
      const reads = streams.flatMap((s, i) => [
        { stream: s, options: undefined, expected: s.appended },
        { stream: s, options: { maxCount: i % 5 }, expected: s.appended.slice(0, i % 5) },
        { stream: s, options: { direction: "backwards" as const, maxCount: 1 }, expected: s.appended.slice(-1) },
        {
          stream: s,
          options: { direction: "backwards" as const, maxCount: i % 4 },
          expected: s.appended
            .slice()
            .reverse()
            .slice(0, i % 4),
        },
        { stream: s, options: { direction: "backwards" as const }, expected: s.appended.slice().reverse() },
      ]);

      const answers = await Promise.all(reads.map((r) => store.readStream(r.stream.id, r.options)));

      answers.forEach((answer, i) => {
        const { stream, expected } = reads[i]!;
        expect(ids(answer)).toEqual(ids(expected));
        expect(answer.every((e) => e.streamId === stream.id)).toBe(true);
      });
    });

    it("reads a stream that does not exist as empty", async () => {
      expect(await context.store().readStream(aStreamId())).toEqual([]);
      expect(await context.store().readStream(aStreamId(), { direction: "backwards" })).toEqual([]);
    });

    it("reads $all after a position, in order, across streams", async () => {
      const store = context.store();
      const category = aCategory();
      const before = await store.headPosition();
      const a = aStreamId(category);
      const b = aStreamId(category);
      const written = [...events(2), ...events(1), ...events(2)];
      await store.append(a, written.slice(0, 2), "no_stream");
      await store.append(b, written.slice(2, 3), "no_stream");
      const last = await store.append(a, written.slice(3), 1n);

      const mine = (read: RecordedEvent[]) => read.filter((e) => e.streamId === a || e.streamId === b);
      const read = mine(await readAllUntil(store, { after: before }, (r) => mine(r).length === 5));
      expect(ids(read)).toEqual(ids(written));
      expectStrictlyIncreasing(read.map((e) => e.position));
      expect(read[4]!.position).toEqual(last.position);

      const afterFirst = mine(await readAllUntil(store, { after: read[1]!.position }, (r) => mine(r).length === 3));
      expect(ids(afterFirst)).toEqual(ids(read.slice(2)));
      expect(comparePositions(await store.headPosition(), last.position)).toBeGreaterThanOrEqual(0);
    });

    it("gives a committed position at or past every append that finished before it", async () => {
      const store = context.store();
      const first = await store.append(aStreamId(), events(2), "no_stream");
      const last = await store.append(aStreamId(), events(1), "no_stream");
      const committed = await store.committedPosition();
      expect(comparePositions(committed, last.position)).toBeGreaterThanOrEqual(0);
      expect(comparePositions(committed, first.position)).toBeGreaterThan(0);
    });

    it("reads $all with maxCount", async () => {
      const store = context.store();
      const before = await store.headPosition();
      const stream = aStreamId();
      await store.append(stream, events(4), "no_stream");
      await readAllUntil(store, { after: before }, (r) => r.filter((e) => e.streamId === stream).length === 4);
      const read = await store.readAll({ after: before, maxCount: 2 });
      expect(read).toHaveLength(2);
    });

    it("filters $all by event-type prefix", async () => {
      const store = context.store();
      const prefix = aCategory().toUpperCase();
      const before = await store.headPosition();
      const stream = aStreamId();
      const wanted = [anEvent({ type: `${prefix}Queued` }), anEvent({ type: `${prefix}Sent` })];
      await store.append(stream, [wanted[0]!, anEvent({ type: `Other${prefix}Queued` }), wanted[1]!], "no_stream");
      const filter = { eventTypePrefix: [prefix] };
      const read = await readAllUntil(store, { after: before, filter }, (r) => r.length === 2);
      expect(ids(read)).toEqual(ids(wanted));
    });

    it("filters $all by stream category", async () => {
      const store = context.store();
      const [one, two, other] = [aCategory(), aCategory(), aCategory()];
      const before = await store.headPosition();
      const a = aStreamId(one);
      const b = aStreamId(two);
      await store.append(a, events(2), "no_stream");
      await store.append(aStreamId(other), events(2), "no_stream");
      await store.append(b, events(1), "no_stream");
      const filter = { streamCategory: [one, two] };
      const read = await readAllUntil(store, { after: before, filter }, (r) => r.length === 3);
      expect(read.map((e) => e.streamId)).toEqual([a, a, b]);
      const single = await store.readAll({ after: before, filter: { streamCategory: [two] } });
      expect(single.map((e) => e.streamId)).toEqual([b]);
    });
  });
}
