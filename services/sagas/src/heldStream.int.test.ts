import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import type { Decider } from "@tidings/domain";
import type { EventStore, ReadStreamOptions } from "@tidings/eventstore";
import { testStoreDatabase } from "@tidings/eventstore/testing";
import { testMode } from "@tidings/postgres";
import { holdStream } from "./heldStream.js";

type Added = { type: "Added"; data: { n: number } };
/** A tally that records each number once: enough to see which events a held stream has folded. */
const tally: Decider<{ add: number }, Added, number[]> = {
  initialState: [],
  evolve: (state, event) => [...state, event.data.n],
  decide: (command, state) => (state.includes(command.add) ? [] : [{ type: "Added", data: { n: command.add } }]),
};

describe(`a held stream (${testMode() === "server" ? "PostgreSQL" : "PGlite"})`, () => {
  const database = testStoreDatabase();
  /** The store, with every read of a stream noted: from which revision it read, and how many events it got. */
  const reading = () => {
    const reads: { from: ReadStreamOptions["fromRevision"]; events: number }[] = [];
    const store: EventStore = {
      ...database.store,
      readStream: async (streamId: string, options?: ReadStreamOptions) => {
        const events = await database.store.readStream(streamId, options);
        reads.push({ from: options?.fromRevision, events: events.length });
        return events;
      },
    };
    return { store, reads };
  };
  const added = (...numbers: number[]) => numbers.map((n) => ({ id: randomUUID(), type: "Added", data: { n } }));

  it("starts from the state its caller read, and after another writer's append reads only the events after those it folded", async () => {
    const stream = `tally-${randomUUID()}`;
    await database.store.append(stream, added(1, 2, 3), "no_stream");
    const { store, reads } = reading();
    const held = await holdStream(store, stream, tally, () => ({}), { state: [1, 2, 3], revision: 2n });
    expect(reads).toEqual([]);

    await database.store.append(stream, added(4), 2n);
    expect(await held.record({ add: 4 })).toBe(false);
    // The conflict's read began after the three folded events, found the other writer's, and decided on it.
    expect(reads).toEqual([{ from: 3n, events: 1 }]);
    expect(await held.record({ add: 5 })).toBe(true);
    expect((await database.store.readStream(stream)).map((e) => (e.data as { n: number }).n)).toEqual([1, 2, 3, 4, 5]);
  });

  it("reads the whole stream when its caller knew nothing of it", async () => {
    const stream = `tally-${randomUUID()}`;
    await database.store.append(stream, added(1, 2), "no_stream");
    const { store, reads } = reading();
    const held = await holdStream(store, stream, tally, () => ({}));
    expect(reads).toEqual([{ from: undefined, events: 2 }]);
    expect(await held.record({ add: 2 })).toBe(false);
    expect(await held.record({ add: 3 })).toBe(true);
  });
});
