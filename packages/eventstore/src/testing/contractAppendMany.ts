import { describe, expect, it } from "vitest";
import type { ContractContext } from "./contract.js";
import { aStreamId, events, expectStrictlyIncreasing } from "./contractBuilders.js";
import { WrongExpectedRevisionError, type StreamAppend } from "../port.js";

export interface AppendManyGuarantee {
  /** All or nothing (PostgreSQL); otherwise one stream after another, idempotent on retry (EventStoreDB 6.x). */
  atomic: boolean;
}

export function appendManyContract(context: ContractContext, guarantee: AppendManyGuarantee): void {
  describe("appendMany", () => {
    it("appends to several streams, each at its own expected revision, with results in the order given", async () => {
      const store = context.store();
      const [a, b, c] = [aStreamId(), aStreamId(), aStreamId()];
      await store.append(b, events(2), "no_stream");
      const toA = events(1);
      const toB = events(2);
      const toC = events(3);
      const results = await store.appendMany([
        { streamId: a, events: toA, expectedRevision: "no_stream" },
        { streamId: b, events: toB, expectedRevision: 1n },
        { streamId: c, events: toC, expectedRevision: "any" },
      ]);
      expect(results.map((r) => r.nextExpectedRevision)).toEqual([0n, 3n, 2n]);
      const read = await Promise.all([a, b, c].map((s) => store.readStream(s)));
      expect(read[0]!.map((e) => e.id)).toEqual(toA.map((e) => e.id));
      expect(read[1]!.slice(2).map((e) => e.id)).toEqual(toB.map((e) => e.id));
      expect(read[2]!.map((e) => e.id)).toEqual(toC.map((e) => e.id));
      expect(results.map((r) => r.position)).toEqual([read[0]!.at(-1)!.position, read[1]!.at(-1)!.position, read[2]!.at(-1)!.position]);
      expectStrictlyIncreasing(results.map((r) => r.position));
    });

    it("throws the conflicting stream's WrongExpectedRevisionError", async () => {
      const store = context.store();
      const [taken, fresh] = [aStreamId(), aStreamId()];
      await store.append(taken, events(1), "no_stream");
      const error = await store
        .appendMany([
          { streamId: taken, events: events(1), expectedRevision: "no_stream" },
          { streamId: fresh, events: events(1), expectedRevision: "no_stream" },
        ])
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(WrongExpectedRevisionError);
      expect(error).toMatchObject({ streamId: taken, expected: "no_stream", actual: 0n });
      expect(await store.readStream(fresh)).toEqual([]);
    });

    if (guarantee.atomic) {
      it("writes nothing when a later stream conflicts, and leaves a new stream new", async () => {
        const store = context.store();
        const [fresh, taken] = [aStreamId(), aStreamId()];
        await store.append(taken, events(2), "no_stream");
        await expect(
          store.appendMany([
            { streamId: fresh, events: events(2), expectedRevision: "no_stream" },
            { streamId: taken, events: events(1), expectedRevision: 0n },
          ]),
        ).rejects.toMatchObject({ name: "WrongExpectedRevisionError", streamId: taken, actual: 1n });
        expect(await store.readStream(fresh)).toEqual([]);
        expect(await store.readStream(taken)).toHaveLength(2);
        expect((await store.append(fresh, events(1), "no_stream")).nextExpectedRevision).toBe(0n);
      });

      it("keeps concurrent appendMany calls apart: a conflicting one writes nothing, the others everything", async () => {
        const store = context.store();
        const taken = aStreamId();
        await store.append(taken, events(1), "no_stream");
        const calls = Array.from({ length: 12 }, (_, i) => {
          const streams = [aStreamId(), aStreamId()];
          const conflicting = i % 4 === 1;
          const appends = streams.map((streamId) => ({ streamId, events: events(1), expectedRevision: "no_stream" as const }));
          if (conflicting) appends.push({ streamId: taken, events: events(1), expectedRevision: "no_stream" });
          return {
            streams,
            conflicting,
            done: store.appendMany(appends).then(
              () => "ok",
              (e: unknown) => e,
            ),
          };
        });
        for (const call of calls) {
          const outcome = await call.done;
          if (call.conflicting) expect(outcome).toBeInstanceOf(WrongExpectedRevisionError);
          else expect(outcome).toBe("ok");
          const lengths = await Promise.all(call.streams.map(async (s) => (await store.readStream(s)).length));
          expect(lengths).toEqual(call.conflicting ? [0, 0] : [1, 1]);
        }
      });
    } else {
      it("leaves the streams before a conflict written, and a retry with the same ids completes without doubling", async () => {
        const store = context.store();
        const [first, later] = [aStreamId(), aStreamId()];
        await store.append(later, events(1), "no_stream");
        const toFirst = events(1);
        const toFirstAppend: StreamAppend = { streamId: first, events: toFirst, expectedRevision: "no_stream" };
        const toLater = events(1);
        await expect(
          store.appendMany([toFirstAppend, { streamId: later, events: toLater, expectedRevision: "no_stream" }]),
        ).rejects.toBeInstanceOf(WrongExpectedRevisionError);
        expect((await store.readStream(first)).map((e) => e.id)).toEqual(toFirst.map((e) => e.id));
        await store.appendMany([toFirstAppend, { streamId: later, events: toLater, expectedRevision: 0n }]);
        expect(await store.readStream(first)).toHaveLength(1);
        expect(await store.readStream(later)).toHaveLength(2);
      });
    }

    it("treats the same call again as a retry: nothing new, the first results", async () => {
      const store = context.store();
      const appends = [aStreamId(), aStreamId()].map((streamId) => ({
        streamId,
        events: events(2),
        expectedRevision: "no_stream" as const,
      }));
      const first = await store.appendMany(appends);
      expect(await store.appendMany(appends)).toEqual(first);
      for (const { streamId } of appends) expect(await store.readStream(streamId)).toHaveLength(2);
    });

    it("rejects a stream named twice, writing nothing", async () => {
      const store = context.store();
      const stream = aStreamId();
      await expect(
        store.appendMany([
          { streamId: stream, events: events(1), expectedRevision: "no_stream" },
          { streamId: stream, events: events(1), expectedRevision: 0n },
        ]),
      ).rejects.toThrow(/more than once/);
      expect(await store.readStream(stream)).toEqual([]);
    });
  });
}
