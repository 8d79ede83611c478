import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import type { RecordedEvent } from "../port.js";
import { anEsdbEvent } from "./anEsdbEvent.js";
import { toRecordedEvent } from "./events.js";
import { subscriptionOf } from "./subscription.js";

/** An object-mode stream standing in for the client's subscription, which is a Node readable with unsubscribe(). */
function aSource() {
  const stream = new PassThrough({ objectMode: true });
  let unsubscribed = 0;
  const source = Object.assign(stream, {
    async unsubscribe() {
      unsubscribed++;
      stream.end();
    },
  });
  return { source, unsubscribed: () => unsubscribed };
}

const event = (revision: number) => toRecordedEvent(anEsdbEvent({ revision: BigInt(revision) }));

describe("subscriptionOf", () => {
  it("delivers mapped events in order and drops the ones the mapping rejects", async () => {
    const { source } = aSource();
    const subscription = subscriptionOf<RecordedEvent>(source, (e) => (e.revision === 1n ? undefined : e));
    for (const revision of [0, 1, 2]) source.write(event(revision));
    const seen: bigint[] = [];
    for await (const e of subscription) {
      seen.push(e.revision);
      if (seen.length === 2) break;
    }
    expect(seen).toEqual([0n, 2n]);
  });

  it("ends an iteration that is waiting for the next event when stopped, and cancels the call", async () => {
    const { source, unsubscribed } = aSource();
    const subscription = subscriptionOf<RecordedEvent>(source, (e) => e);
    const iteration = (async () => {
      const seen: RecordedEvent[] = [];
      for await (const e of subscription) seen.push(e);
      return seen;
    })();
    source.write(event(0));
    await new Promise((resolve) => setTimeout(resolve, 10));
    await subscription.stop();
    expect(await iteration).toHaveLength(1);
    expect(unsubscribed()).toBe(1);
  });

  it("cancels the call when the consumer leaves the loop", async () => {
    const { source, unsubscribed } = aSource();
    const subscription = subscriptionOf<RecordedEvent>(source, (e) => e);
    source.write(event(0));
    for await (const _ of subscription) break;
    expect(unsubscribed()).toBe(1);
  });

  it("surfaces a client error to the iterator after the events that came before it", async () => {
    const { source } = aSource();
    const subscription = subscriptionOf<RecordedEvent>(source, (e) => e);
    source.write(event(0));
    const unavailable = Object.assign(new Error("14 UNAVAILABLE: connection dropped"), { code: 14 });
    setTimeout(() => source.destroy(unavailable), 5);
    const seen: bigint[] = [];
    await expect(
      (async () => {
        for await (const e of subscription) seen.push(e.revision);
      })(),
    ).rejects.toBe(unavailable);
    expect(seen).toEqual([0n]);
  });

  it("reports an end of the subscription that nobody asked for", async () => {
    const { source } = aSource();
    const subscription = subscriptionOf<RecordedEvent>(source, (e) => e);
    source.end();
    await expect(subscription[Symbol.asyncIterator]().next()).rejects.toThrow(/ended the \$all subscription/);
  });

  it("surfaces a mapping failure and cancels the call", async () => {
    const { source, unsubscribed } = aSource();
    const subscription = subscriptionOf<RecordedEvent>(source, () => {
      throw new Error("no position");
    });
    source.write(event(0));
    await expect(subscription[Symbol.asyncIterator]().next()).rejects.toThrow("no position");
    expect(unsubscribed()).toBeGreaterThanOrEqual(1);
  });

  it("pauses the client while the consumer lags, and resumes once it has drained half", async () => {
    const { source } = aSource();
    const subscription = subscriptionOf<RecordedEvent>(source, (e) => e);
    for (let revision = 0; revision < 300; revision++) source.write(event(revision));
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(source.isPaused()).toBe(true);
    const iterator = subscription[Symbol.asyncIterator]();
    for (let i = 0; i < 128; i++) await iterator.next();
    expect(source.isPaused()).toBe(false);
    let count = 128;
    while (count < 300) {
      await iterator.next();
      count++;
    }
    await subscription.stop();
  });

  it("calls onStop once however often it is stopped", async () => {
    const { source } = aSource();
    let stops = 0;
    const subscription = subscriptionOf<RecordedEvent>(
      source,
      (e) => e,
      () => stops++,
    );
    await subscription.stop();
    await subscription.stop();
    expect(stops).toBe(1);
  });
});
