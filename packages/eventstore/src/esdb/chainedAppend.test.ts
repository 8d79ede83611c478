import { describe, expect, it } from "vitest";
import { contentHash, GENESIS, linkHash } from "../integrity/hashes.js";
import { events } from "../testing/contractBuilders.js";
import { WrongExpectedRevisionError, type EventToAppend, type ExpectedRevision, type RecordedEvent } from "../port.js";
import { chainedAppend, HASH_KEY, type ChainedAppendDeps } from "./chainedAppend.js";

/**
 * What the adapter relies on of an EventStoreDB stream, as the server documents it: revisions go on
 * after a truncation, a write names the revision it expects (counting truncated events), and a
 * truncated stream reads as empty. No server can run here; the contract suite runs against a real one
 * when EVENTSTORE_URL is set.
 */
class StreamServer implements ChainedAppendDeps {
  private readonly streams = new Map<string, { events: RecordedEvent[]; truncateBefore?: bigint }>();
  /** Runs once, between the next read of the stream's head and the write: another writer's append. */
  meanwhile: (() => Promise<void>) | undefined;

  private visible(streamId: string): RecordedEvent[] {
    const stream = this.streams.get(streamId);
    return stream ? stream.events.filter((e) => e.revision >= (stream.truncateBefore ?? 0n)) : [];
  }

  async newest(streamId: string, count: number) {
    const newest = this.visible(streamId).reverse().slice(0, count);
    const meanwhile = this.meanwhile;
    this.meanwhile = undefined;
    await meanwhile?.();
    return newest;
  }

  async range(streamId: string, from: bigint, count: number) {
    return this.visible(streamId)
      .filter((e) => e.revision >= from)
      .slice(0, count);
  }

  async deletedUpTo(streamId: string) {
    return this.streams.get(streamId)?.truncateBefore;
  }

  async write(streamId: string, written: EventToAppend[], expected: ExpectedRevision) {
    const stream = this.streams.get(streamId) ?? { events: [] };
    const last = stream.events.at(-1)?.revision;
    const actual = last ?? "no_stream";
    const ok =
      expected === "any" ||
      (expected === "no_stream" ? last === undefined : expected === "stream_exists" ? last !== undefined : expected === last);
    if (!ok) throw new WrongExpectedRevisionError(streamId, expected, actual);
    for (const [i, event] of written.entries()) {
      const { [HASH_KEY]: hash, ...metadata } = (event.metadata ?? {}) as Record<string, unknown>;
      stream.events.push({
        id: event.id.toLowerCase(),
        type: event.type,
        data: event.data,
        metadata,
        streamId,
        revision: (last ?? -1n) + 1n + BigInt(i),
        position: { commit: 0n, prepare: 0n },
        createdAt: new Date(),
        ...(typeof hash === "string" && { hash }),
      });
    }
    this.streams.set(streamId, stream);
    return { nextExpectedRevision: stream.events.at(-1)!.revision };
  }

  truncate(streamId: string) {
    const stream = this.streams.get(streamId)!;
    stream.truncateBefore = stream.events.at(-1)!.revision + 1n;
  }

  all(streamId: string) {
    return this.streams.get(streamId)?.events ?? [];
  }
}

/** Each event's hash links it to the one before it in the stream, from `from` on, starting at `previous`. */
function expectChained(stored: RecordedEvent[], appended: EventToAppend[], previous = GENESIS) {
  for (const [i, event] of stored.entries()) {
    expect(event.hash).toBe(linkHash(previous, event.streamId, event.revision, contentHash(appended[i]!)));
    previous = event.hash!;
  }
}

describe("an append chained on EventStoreDB", () => {
  it("chains each event to the stream's last one, across appends", async () => {
    const server = new StreamServer();
    const written = events(3);
    await chainedAppend(server, "s-1", written.slice(0, 2), "no_stream");
    expect(await chainedAppend(server, "s-1", written.slice(2), 1n)).toEqual({ nextExpectedRevision: 2n });
    expectChained(server.all("s-1"), written);
  });

  it("answers a retry with the first result, however far the stream went on since, and writes nothing", async () => {
    const server = new StreamServer();
    const [first, second] = [events(2), events(1)];
    await chainedAppend(server, "s-1", first, "no_stream");
    await chainedAppend(server, "s-1", second, 1n);
    await chainedAppend(server, "s-1", events(4), "any");
    expect(await chainedAppend(server, "s-1", first, "no_stream")).toEqual({ nextExpectedRevision: 1n });
    expect(await chainedAppend(server, "s-1", second, 1n)).toEqual({ nextExpectedRevision: 2n });
    expect(await chainedAppend(server, "s-1", second, "any")).toEqual({ nextExpectedRevision: 2n });
    expect(server.all("s-1")).toHaveLength(7);
  });

  it("refuses a different append at a revision already taken", async () => {
    const server = new StreamServer();
    await chainedAppend(server, "s-1", events(2), "no_stream");
    await expect(chainedAppend(server, "s-1", events(1), 0n)).rejects.toMatchObject({ expected: 0n, actual: 1n });
    await expect(chainedAppend(server, "s-1", events(1), "no_stream")).rejects.toBeInstanceOf(WrongExpectedRevisionError);
  });

  it("goes on after a deleted (truncated) stream's last revision, from a new chain, and knows a retry there", async () => {
    const server = new StreamServer();
    await chainedAppend(server, "s-1", events(3), "no_stream");
    server.truncate("s-1");
    const again = events(2);
    expect(await chainedAppend(server, "s-1", again, "no_stream")).toEqual({ nextExpectedRevision: 4n });
    expect(await chainedAppend(server, "s-1", again, "no_stream")).toEqual({ nextExpectedRevision: 4n });
    expectChained(server.all("s-1").slice(3), again);
    server.truncate("s-1");
    const more = events(1);
    expect(await chainedAppend(server, "s-1", more, "any")).toEqual({ nextExpectedRevision: 5n });
    expectChained(server.all("s-1").slice(5), more);
  });

  it("rides out another writer's append for `any` and `stream_exists`, chaining to the new head, and refuses it for a revision", async () => {
    const server = new StreamServer();
    await chainedAppend(server, "s-1", events(1), "no_stream");
    const other = events(1);
    for (const expected of ["any", "stream_exists"] as const) {
      server.meanwhile = async () => void (await server.write("s-1", [{ ...other[0]!, id: crypto.randomUUID() }], "any"));
      const mine = events(1);
      await chainedAppend(server, "s-1", mine, expected);
      const stored = server.all("s-1").at(-1)!;
      expect(stored.id).toBe(mine[0]!.id);
      expect(stored.hash).toBe(linkHash(server.all("s-1").at(-2)!.hash ?? "", "s-1", stored.revision, contentHash(mine[0]!)));
    }
    const head = server.all("s-1").at(-1)!.revision;
    server.meanwhile = async () => void (await server.write("s-1", events(1), "any"));
    await expect(chainedAppend(server, "s-1", events(1), head)).rejects.toMatchObject({ expected: head, actual: head + 1n });
  });
});
