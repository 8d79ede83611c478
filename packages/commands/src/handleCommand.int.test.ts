import { describe, expect, it } from "vitest";
import { testEventStore } from "@tidings/eventstore/testing";
import { DomainError, type Decider } from "@tidings/domain";
import { DomainRejection, handleCommand } from "./handleCommand.js";
import { claimAlongside, release, reservationStream, reservedBy, reserve } from "./reservation.js";
import { newId } from "@tidings/core";

type CounterEvent = { type: "Incremented"; data: { by: number } };
type CounterCommand = { type: "Increment"; by: number; max: number };

const counter: Decider<CounterCommand, CounterEvent, number> = {
  initialState: 0,
  evolve: (total, e) => total + e.data.by,
  decide: (c, total) =>
    total + c.by > c.max ? new DomainError("validation_error", "over the maximum") : [{ type: "Incremented", data: { by: c.by } }],
};

const store = testEventStore();

const increment = (streamId: string, by: number, max = 1000) =>
  handleCommand({ store, streamId, decider: counter, command: { type: "Increment", by, max }, metadata: { actor: "cli" } });

describe("handleCommand", () => {
  it("decides again on the new state when a concurrent writer moved the stream", async () => {
    await Promise.all(Array.from({ length: 10 }, () => increment("counter-race", 1)));
    const events = await store.readStream("counter-race");
    expect(events).toHaveLength(10);
    expect(events.map((e) => e.revision)).toEqual(Array.from({ length: 10 }, (_, i) => BigInt(i)));
  });

  it("enforces the rule against concurrent writers: never over the maximum", async () => {
    const results = await Promise.allSettled(Array.from({ length: 8 }, () => increment("counter-max", 1, 3)));
    expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(3);
    const rejected = results.filter((r): r is PromiseRejectedResult => r.status === "rejected");
    expect(rejected.every((r) => r.reason instanceof DomainRejection && r.reason.error.name === "validation_error")).toBe(true);
    expect(await store.readStream("counter-max")).toHaveLength(3);
  });

  it("likelyNew: writes a new stream without reading it, and decides on the stream when it exists after all", async () => {
    const likelyNew = (by: number, max: number) =>
      handleCommand({
        store,
        streamId: "counter-new",
        decider: counter,
        command: { type: "Increment", by, max },
        metadata: { actor: "cli" },
        likelyNew: true,
      });
    await likelyNew(2, 10);
    await likelyNew(3, 10);
    expect((await store.readStream("counter-new")).map((e) => (e.data as { by: number }).by)).toEqual([2, 3]);
    // Decided on the stream's state (5), not on the initial state it first assumed.
    await expect(likelyNew(6, 10)).rejects.toThrow(DomainRejection);
  });

  it("returns the position of the appended event for read-your-writes", async () => {
    const outcome = await increment("counter-position", 2);
    const [event] = await store.readStream("counter-position");
    expect(outcome.position).toEqual(event!.position);
  });
});

describe("reserve", () => {
  it("claimAlongside: one of many claimants of a free value wins and has its events written; the others write nothing", async () => {
    const stream = reservationStream("team-a", "alias", "alongside");
    const owners = Array.from({ length: 8 }, (_, i) => `owner-${i}`);
    const results = await Promise.all(
      owners.map((o) =>
        claimAlongside(store, stream, o, {}, [
          {
            streamId: `owned-${stream}-${o}`,
            events: [{ id: newId(), type: "Incremented", data: { by: 1 } }],
            expectedRevision: "no_stream",
          },
        ]),
      ),
    );
    expect(results.filter((r) => r !== undefined)).toHaveLength(1);
    const winner = owners[results.findIndex((r) => r !== undefined)]!;
    expect(await reservedBy(store, stream)).toBe(winner);
    for (const o of owners) expect(await store.readStream(`owned-${stream}-${o}`)).toHaveLength(o === winner ? 1 : 0);
    // The slow way still knows the winner.
    expect(await reserve(store, stream, "late", {})).toEqual({ won: false, ownerId: winner });
  });

  it("claimAlongside: a value its owner released is claimed anew, never taken for the owner's earlier claim", async () => {
    const stream = reservationStream("team-a", "alias", "alongside-released");
    expect(await claimAlongside(store, stream, "me", {}, [])).toEqual([]);
    await release(store, stream, "me", {});
    expect(await claimAlongside(store, stream, "me", {}, [])).toBeUndefined();
    expect(await reserve(store, stream, "me", {})).toEqual({ won: true });
    expect(await reservedBy(store, stream)).toBe("me");
    expect((await store.readStream(stream)).map((e) => e.type)).toEqual(["ValueReserved", "ValueReleased", "ValueReserved"]);
  });

  it("lets exactly one of many concurrent claimants win a value", async () => {
    const stream = reservationStream("team-a", "alias", "welcome");
    const owners = Array.from({ length: 8 }, (_, i) => `owner-${i}`);
    const results = await Promise.all(owners.map((o) => reserve(store, stream, o, {})));
    expect(results.filter((r) => r.won)).toHaveLength(1);
    const winner = owners[results.findIndex((r) => r.won)];
    expect(results.filter((r) => !r.won).every((r) => !r.won && r.ownerId === winner)).toBe(true);
  });

  it("lets the owner claim its own value again", async () => {
    const stream = reservationStream("team-a", "alias", "again");
    expect(await reserve(store, stream, "me", {})).toEqual({ won: true });
    expect(await reserve(store, stream, "me", {})).toEqual({ won: true });
    expect(await reserve(store, stream, "you", {})).toEqual({ won: false, ownerId: "me" });
  });

  it("keeps one team's values apart from another's", async () => {
    expect(await reserve(store, reservationStream("team-a", "alias", "same"), "a", {})).toEqual({ won: true });
    expect(await reserve(store, reservationStream("team-b", "alias", "same"), "b", {})).toEqual({ won: true });
  });

  it("lets a released value be claimed again, by one of many claimants", async () => {
    const stream = reservationStream("team-a", "alias", "released");
    expect(await reserve(store, stream, "first", {})).toEqual({ won: true });
    expect(await release(store, stream, "someone-else", {})).toBe(false);
    expect(await release(store, stream, "first", {})).toBe(true);
    expect(await reservedBy(store, stream)).toBeUndefined();
    const owners = Array.from({ length: 6 }, (_, i) => `next-${i}`);
    const results = await Promise.all(owners.map((o) => reserve(store, stream, o, {})));
    expect(results.filter((r) => r.won)).toHaveLength(1);
    expect(await reservedBy(store, stream)).toBe(owners[results.findIndex((r) => r.won)]);
  });

  it("takes over a claim its owner no longer holds", async () => {
    const stream = reservationStream("team-a", "alias", "abandoned");
    await reserve(store, stream, "gone", {});
    expect(await reserve(store, stream, "new", {}, { stillHeld: async () => true })).toEqual({ won: false, ownerId: "gone" });
    expect(await reserve(store, stream, "new", {}, { stillHeld: async (owner) => owner !== "gone" })).toEqual({ won: true });
    expect(await reservedBy(store, stream)).toBe("new");
  });
});
