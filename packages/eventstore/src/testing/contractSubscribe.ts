import { describe, expect, it } from "vitest";
import type { ContractContext } from "./contract.js";
import { aCategory, aCategoryWithEvents, aStreamId, events, SubscriptionReader } from "./contractBuilders.js";
import { expectConcurrentAppendsDeliveredOnce } from "./contractConcurrency.js";

const WRITERS = 8;

export function subscribeContract(context: ContractContext): void {
  describe("subscribeToAll", () => {
    it("catches up on past events, then delivers live ones", async () => {
      const store = context.store();
      const { category, before, stream, appended: past } = await aCategoryWithEvents(store, 3);

      const subscription = store.subscribeToAll({ after: before, filter: { streamCategory: [category] } });
      try {
        const reader = new SubscriptionReader(subscription);
        expect((await reader.take(3)).map((e) => e.id)).toEqual(past.map((e) => e.id));
        const live = events(2);
        await store.append(stream, live, 2n);
        expect((await reader.take(2)).map((e) => e.id)).toEqual(live.map((e) => e.id));
      } finally {
        await subscription.stop();
      }
    });

    it("resumes after a checkpoint with the next event", async () => {
      const store = context.store();
      const { category, before, appended } = await aCategoryWithEvents(store, 5);
      const filter = { streamCategory: [category] };

      const first = store.subscribeToAll({ after: before, filter });
      const taken = await new SubscriptionReader(first).take(2);
      await first.stop();
      const resumed = store.subscribeToAll({ after: taken[1]!.position, filter });
      try {
        const rest = await new SubscriptionReader(resumed).take(3);
        expect(rest.map((e) => e.id)).toEqual(appended.slice(2).map((e) => e.id));
      } finally {
        await resumed.stop();
      }
    });

    it("filters a live subscription by event-type prefix", async () => {
      const store = context.store();
      const prefix = aCategory().toUpperCase();
      const subscription = store.subscribeToAll({ after: await store.headPosition(), filter: { eventTypePrefix: [prefix] } });
      try {
        const reader = new SubscriptionReader(subscription);
        const stream = aStreamId();
        const wanted = events(1, { type: `${prefix}Sent` });
        await store.append(stream, [...events(2, { type: "Unrelated" }), ...wanted], "no_stream");
        expect((await reader.take(1)).map((e) => e.id)).toEqual(wanted.map((e) => e.id));
      } finally {
        await subscription.stop();
      }
    });

    it("ends a for-await loop waiting for live events when stopped", async () => {
      const store = context.store();
      const subscription = store.subscribeToAll({ after: await store.headPosition(), filter: { streamCategory: [aCategory()] } });
      const loop = (async () => {
        let count = 0;
        for await (const _ of subscription) count++;
        return count;
      })();
      await new Promise((resolve) => setTimeout(resolve, 200));
      await subscription.stop();
      expect(await loop).toBe(0);
    });

    it(`delivers every event exactly once, in stream and position order, while ${WRITERS} writers append concurrently`, async () => {
      const store = context.store();
      await expectConcurrentAppendsDeliveredOnce(
        store,
        Array.from({ length: WRITERS }, () => store),
      );
    });
  });
}
