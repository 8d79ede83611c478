import { describe, expect, it } from "vitest";
import { gate, waitUntil } from "../recordingConsumer.js";
import type { BusContractContext } from "./contract.js";
import { scope } from "./contractScope.js";

/** What metrics read of a consumer: its messages not acked yet, delivered or waiting. */
export function pendingContract({ bus }: BusContractContext): void {
  describe("pending", () => {
    it("counts a durable's messages until they are acked, and nothing for a durable never created", async () => {
      const s = scope();
      expect(await bus.pending(s.durable("never"))).toBe(0);
      for (const n of [1, 2, 3]) await bus.publish(s.subject("T"), n, { msgId: s.msgId(`${n}`) });
      await bus.publish(s.subject("Other"), 0, { msgId: s.msgId("other") });
      const held = gate();
      let started = 0;
      // Long enough an ack wait that the held message is not delivered again while the test looks.
      const consumer = await bus.consume(
        { durable: s.durable("a"), filterSubject: s.subject("T"), maxDeliver: 3, ackWaitMs: 30_000 },
        async () => {
          started++;
          await held.promise;
        },
      );
      await waitUntil(() => started === 1);
      expect(await bus.pending(s.durable("a"))).toBe(3);
      held.open();
      await waitUntil(async () => (await bus.pending(s.durable("a"))) === 0);
      await consumer.stop();
    });
  });
}
