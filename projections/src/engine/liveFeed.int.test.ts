import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { expect, it } from "vitest";
import { settledWrites } from "@tidings/postgres";
import type { RecordedEvent } from "@tidings/eventstore";
import { LiveFeed } from "./liveFeed.js";
import { storeOnTestDatabase } from "../testing/storeOnTestDatabase.js";
import { aName, appendEvents, countedType } from "../testing/testBuilders.js";

const env = storeOnTestDatabase();

/** The head once earlier tests' appends all show in `$all`, so that a feed from it gets only what follows. */
async function settledHead() {
  await settledWrites(env.database);
  return env.store.headPosition();
}

/** Takes batches until `count` events have come, then leaves the feed. */
async function take(batches: AsyncIterable<RecordedEvent[]>, count: number, applyMs = 0): Promise<RecordedEvent[][]> {
  const taken: RecordedEvent[][] = [];
  for await (const batch of batches) {
    taken.push(batch);
    await new Promise((resolve) => setTimeout(resolve, applyMs));
    if (taken.flat().length >= count) break;
  }
  return taken;
}

it("hands the same batches, read once, to every member at its position, in lockstep with the slowest", async () => {
  const from = await settledHead();
  const feed = new LiveFeed({ store: env.store, batchSize: 4, batchMs: 0, joinWindowMs: 50 });
  try {
    const fast = feed.join(from)!;
    const slow = feed.join(from)!;
    expect(fast).toBeDefined();
    await appendEvents(env.store, countedType(aName()), 3, 3);
    const [a, b] = await Promise.all([take(fast, 9), take(slow, 9, 30)]);
    expect(a.flat()).toHaveLength(9);
    expect(a).toEqual(b);
    a.forEach((batch, i) => expect(batch).toBe(b[i]));
    // The members left: the feed stands where they stopped, and a projection elsewhere is not let in.
    expect(feed.join(from)).toBeUndefined();
  } finally {
    await feed.stop();
  }
});

it("ends every member's batches when it stops, and lets a member leave without holding up the others", async () => {
  const from = await settledHead();
  const feed = new LiveFeed({ store: env.store, batchSize: 2, batchMs: 0 });
  const leaving = feed.join(from)!;
  const staying = feed.join(from)!;
  await appendEvents(env.store, countedType(aName()), 1, 6);
  const [left, stayed] = await Promise.all([take(leaving, 1), take(staying, 6)]);
  expect(left.flat()).toHaveLength(2);
  expect(stayed.flat()).toHaveLength(6);
  const waiting = feed.join(stayed.flat().at(-1)!.position);
  expect(waiting).toBeDefined();
  const ended = take(waiting!, 1_000);
  await feed.stop();
  expect(await ended).toEqual([]);
  expect(feed.join(from)).toBeUndefined();
});

it("lets go of each batch once every member has gone past it", async () => {
  setFlagsFromString("--expose-gc");
  const gc = runInNewContext("gc") as () => void;
  const from = await settledHead();
  const feed = new LiveFeed({ store: env.store, batchSize: 2, batchMs: 0 });
  try {
    const member = feed.join(from)!;
    await appendEvents(env.store, countedType(aName()), 1, 8);
    const iterator = member[Symbol.asyncIterator]();
    const first = new WeakRef((await iterator.next()).value as RecordedEvent[]);
    for (let i = 0; i < 3; i++) await iterator.next();
    await new Promise((resolve) => setImmediate(resolve));
    gc();
    expect(first.deref()).toBeUndefined();
    await iterator.return?.();
  } finally {
    await feed.stop();
  }
});
