import { describe, expect, it } from "vitest";
import type { ContractContext } from "./contract.js";
import { aStreamId, anEvent, events, expectStrictlyIncreasing } from "./contractBuilders.js";
import { WrongExpectedRevisionError, type ExpectedRevision } from "../port.js";

async function conflictOf(promise: Promise<unknown>): Promise<WrongExpectedRevisionError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(WrongExpectedRevisionError);
  return error as WrongExpectedRevisionError;
}

export function appendContract(context: ContractContext): void {
  describe("append", () => {
    it("appends to a new stream with no_stream and reads every field back in order", async () => {
      const store = context.store();
      const stream = aStreamId();
      const appended = events(3);
      const result = await store.append(stream, appended, "no_stream");
      expect(result.nextExpectedRevision).toBe(2n);

      const read = await store.readStream(stream);
      expect(read.map((e) => e.id)).toEqual(appended.map((e) => e.id));
      expect(read.map((e) => e.revision)).toEqual([0n, 1n, 2n]);
      expect(read[0]).toMatchObject({
        type: appended[0]!.type,
        data: appended[0]!.data,
        metadata: appended[0]!.metadata,
        streamId: stream,
      });
      expect(read[0]!.createdAt).toBeInstanceOf(Date);
      expect(Math.abs(read[0]!.createdAt.getTime() - Date.now())).toBeLessThan(60_000);
      expectStrictlyIncreasing(read.map((e) => e.position));
      expect(read[2]!.position).toEqual(result.position);
    });

    it("appends at an exact revision, with any and with stream_exists", async () => {
      const store = context.store();
      const stream = aStreamId();
      expect((await store.append(stream, events(1), "any")).nextExpectedRevision).toBe(0n);
      expect((await store.append(stream, events(2), 0n)).nextExpectedRevision).toBe(2n);
      expect((await store.append(stream, events(1), "stream_exists")).nextExpectedRevision).toBe(3n);
      expect((await store.append(stream, events(1), "any")).nextExpectedRevision).toBe(4n);
      expect((await store.readStream(stream)).map((e) => e.revision)).toEqual([0n, 1n, 2n, 3n, 4n]);
    });

    it("rejects no_stream on a stream that exists, with the actual revision", async () => {
      const store = context.store();
      const stream = aStreamId();
      await store.append(stream, events(2), "no_stream");
      const conflict = await conflictOf(store.append(stream, events(1), "no_stream"));
      expect(conflict).toMatchObject({ streamId: stream, expected: "no_stream", actual: 1n });
    });

    it("rejects a stale exact revision with the actual revision, and writes nothing", async () => {
      const store = context.store();
      const stream = aStreamId();
      await store.append(stream, events(3), "no_stream");
      const conflict = await conflictOf(store.append(stream, events(2), 0n));
      expect(conflict).toMatchObject({ expected: 0n, actual: 2n });
      expect(await conflictOf(store.append(stream, events(1), 7n))).toMatchObject({ actual: 2n });
      expect(await store.readStream(stream)).toHaveLength(3);
    });

    it("rejects stream_exists and an exact revision on a missing stream with actual no_stream", async () => {
      const store = context.store();
      const stream = aStreamId();
      for (const expected of ["stream_exists", 0n] as ExpectedRevision[]) {
        expect(await conflictOf(store.append(stream, events(1), expected))).toMatchObject({ actual: "no_stream" });
      }
      expect(await store.readStream(stream)).toEqual([]);
    });

    it("treats the same ids at the same expected revision as a retry: nothing new, the first result", async () => {
      const store = context.store();
      const stream = aStreamId();
      const first = events(2);
      const second = events(3);
      const firstResult = await store.append(stream, first, "no_stream");
      const secondResult = await store.append(stream, second, 1n);
      await store.append(stream, events(1), 4n);

      expect(await store.append(stream, first, "no_stream")).toEqual(firstResult);
      expect(await store.append(stream, second, 1n)).toEqual(secondResult);
      expect(await store.readStream(stream)).toHaveLength(6);
    });

    it("rejects the same ids at another expected revision", async () => {
      const store = context.store();
      const stream = aStreamId();
      const first = [anEvent()];
      await store.append(stream, first, "no_stream");
      await store.append(stream, events(1), 0n);
      expect(await conflictOf(store.append(stream, first, 0n))).toMatchObject({ actual: 1n });
      expect(await store.readStream(stream)).toHaveLength(2);
    });

    it("lets exactly one of several racing no_stream appends win", async () => {
      const store = context.store();
      const stream = aStreamId();
      const outcomes = await Promise.allSettled(Array.from({ length: 5 }, () => store.append(stream, events(1), "no_stream")));
      expect(outcomes.filter((o) => o.status === "fulfilled")).toHaveLength(1);
      for (const o of outcomes) {
        if (o.status === "rejected") expect(o.reason).toMatchObject({ name: "WrongExpectedRevisionError", actual: 0n });
      }
      expect(await store.readStream(stream)).toHaveLength(1);
    });

    it("lets exactly one of several racing appends of two events at one revision win, and writes only its events", async () => {
      const store = context.store();
      // Many streams at once, each raced by immediate appends from several instances of the store: a race
      // decided before the others began (a connection still opening) proves nothing, so there are enough
      // that some overlap.
      const racers = Array.from({ length: 4 }, (_, i) => (i === 0 ? store : (context.fixture().another?.() ?? store)));
      const raced = await Promise.all(
        Array.from({ length: 12 }, async () => {
          const stream = aStreamId();
          const first = events(1);
          await store.append(stream, first, "no_stream");
          const batches = Array.from({ length: 4 }, () => events(2));
          const outcomes = await Promise.allSettled(batches.map((batch, i) => racers[i]!.append(stream, batch, 0n, { immediate: true })));
          return { stream, first, batches, outcomes };
        }),
      );
      for (const { stream, first, batches, outcomes } of raced) {
        const won = outcomes.findIndex((o) => o.status === "fulfilled");
        expect(outcomes.filter((o) => o.status === "fulfilled")).toHaveLength(1);
        expect(outcomes[won]).toMatchObject({ value: { nextExpectedRevision: 2n } });
        for (const o of outcomes) {
          if (o.status === "rejected") expect(o.reason).toMatchObject({ name: "WrongExpectedRevisionError", actual: 2n });
        }
        expect((await store.readStream(stream)).map((e) => e.id)).toEqual([...first, ...batches[won]!].map((e) => e.id));
      }
    });

    it("deletes a stream: it reads as empty, and appending with any starts it again", async () => {
      const store = context.store();
      const stream = aStreamId();
      await store.append(stream, events(2), "no_stream");
      await store.deleteStream(stream);
      expect(await store.readStream(stream)).toEqual([]);
      expect(await store.readStream(stream, { direction: "backwards" })).toEqual([]);

      const again = events(1);
      await store.append(stream, again, "any");
      expect((await store.readStream(stream)).map((e) => e.id)).toEqual([again[0]!.id]);
    });
  });
}
