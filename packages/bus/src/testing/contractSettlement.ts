import { describe, expect, it } from "vitest";
import { deadLetterSubject, type BusMessage } from "../port.js";
import { gate, recordingConsumer, sleep, waitUntil } from "../recordingConsumer.js";
import type { BusContractContext } from "./contract.js";
import { ackWaitMs, scope } from "./contractScope.js";

/** How a delivery settles: acks, naks and their delays, the ack wait, stopping, dead letters and concurrency. */
export function settlementContract({ bus }: BusContractContext): void {
  describe("settlement", () => {
    it("redelivers after nak with a delay, and not before the delay", async () => {
      const s = scope();
      await bus.publish(s.subject("T"), "x", { msgId: s.msgId("1") });
      const c = await recordingConsumer(
        bus,
        { durable: s.durable("a"), filterSubject: s.subject("T"), maxDeliver: 3, ackWaitMs },
        async (m) => {
          if (m.deliveryCount === 1) await m.nak(700);
        },
      );
      const [first, second] = await c.waitFor(2);
      await c.stop();
      expect(second!.deliveryCount).toBe(2);
      expect(second!.at - first!.at).toBeGreaterThanOrEqual(690);
    });

    it("redelivers a message whose handler outlives the ack wait", async () => {
      const s = scope();
      const late = gate();
      await bus.publish(s.subject("T"), "x", { msgId: s.msgId("1") });
      const options = { durable: s.durable("a"), filterSubject: s.subject("T"), maxDeliver: 3, ackWaitMs, concurrency: 2 };
      const c = await recordingConsumer(bus, options, async (m) => {
        if (m.deliveryCount === 1) await late.promise;
        else late.open();
      });
      const [first, second] = await c.waitFor(2);
      await c.stop();
      expect(second!.deliveryCount).toBe(2);
      expect(second!.at - first!.at).toBeGreaterThanOrEqual(ackWaitMs - 100);
    });

    it("keeps a message from redelivery while its handler calls working()", async () => {
      const s = scope();
      await bus.publish(s.subject("T"), "x", { msgId: s.msgId("1") });
      let finished = false;
      const options = { durable: s.durable("a"), filterSubject: s.subject("T"), maxDeliver: 3, ackWaitMs, concurrency: 2 };
      const c = await recordingConsumer(bus, options, async (m) => {
        if (m.deliveryCount > 1) return;
        for (let i = 0; i < 5; i++) {
          await sleep(ackWaitMs * 0.4);
          await m.working();
        }
        finished = true;
      });
      await waitUntil(() => finished);
      await c.stop();
      expect(c.received.map((r) => r.deliveryCount)).toEqual([1]);
    });

    it("keeps a long handler's message from redelivery with heartbeat, and redelivers it after the ack wait without", async () => {
      const s = scope();
      await bus.publish(s.subject("T"), "x", { msgId: s.msgId("1") });
      await bus.publish(s.subject("U"), "x", { msgId: s.msgId("2") });
      const longHandler = (m: { deliveryCount: number }) => (m.deliveryCount > 1 ? Promise.resolve() : sleep(ackWaitMs * 2.5));
      const kept = await recordingConsumer(
        bus,
        { durable: s.durable("kept"), filterSubject: s.subject("T"), maxDeliver: 3, ackWaitMs, concurrency: 2, heartbeat: true },
        longHandler,
      );
      const lapsed = await recordingConsumer(
        bus,
        { durable: s.durable("lapsed"), filterSubject: s.subject("U"), maxDeliver: 3, ackWaitMs, concurrency: 2 },
        longHandler,
      );
      await waitUntil(() => kept.received.length >= 1 && lapsed.received.length >= 2);
      await sleep(ackWaitMs * 2);
      await kept.stop();
      await lapsed.stop();
      expect(kept.received.map((r) => r.deliveryCount)).toEqual([1]);
      expect(lapsed.received.map((r) => r.deliveryCount).slice(0, 2)).toEqual([1, 2]);
    });

    it("aborts `stopping` when the consumer stops, and hands the message its handler gave up to the next consumer at once", async () => {
      const s = scope();
      // An ack wait and a backoff far beyond the test's time: only a nak without delay brings the message back.
      const options = {
        durable: s.durable("a"),
        filterSubject: s.subject("T"),
        maxDeliver: 3,
        ackWaitMs: 120_000,
        heartbeat: true,
        backoffMs: () => 120_000,
      };
      await bus.publish(s.subject("T"), "x", { msgId: s.msgId("1") });
      const untilStopped = (m: BusMessage) =>
        new Promise<void>((_, reject) => m.stopping.addEventListener("abort", () => reject(new Error("stopped")), { once: true }));
      const first = await recordingConsumer(bus, options, untilStopped);
      await first.waitFor(1);
      await first.stop();
      const second = await recordingConsumer(bus, options);
      const [again] = await second.waitFor(1);
      await second.stop();
      expect(first.received.map((r) => r.deliveryCount)).toEqual([1]);
      expect([again!.data, again!.deliveryCount]).toEqual(["x", 2]);
    });

    it("naks a throwing handler with backoff and dead-letters the message after maxDeliver deliveries", async () => {
      const s = scope();
      const durable = s.durable("failing");
      await bus.publish(s.subject("T"), { order: 7 }, { msgId: s.msgId("1"), headers: { "x-trace": "t1" } });
      const options = { durable, filterSubject: s.subject("T"), maxDeliver: 3, ackWaitMs, backoffMs: () => 150 };
      const c = await recordingConsumer(bus, options, async (m) => {
        throw new Error(`boom on delivery ${m.deliveryCount}`);
      });
      const graveyard = await recordingConsumer(bus, {
        durable: s.durable("graveyard"),
        filterSubject: deadLetterSubject(durable),
        maxDeliver: 3,
        ackWaitMs,
      });
      await graveyard.waitFor(1);
      await sleep(400);
      await Promise.all([c.stop(), graveyard.stop()]);

      expect(c.received.map((r) => r.deliveryCount)).toEqual([1, 2, 3]);
      expect(c.received[1]!.at - c.received[0]!.at).toBeGreaterThanOrEqual(140);
      const [letter] = await bus.deadLetters(durable);
      expect(letter).toMatchObject({
        subject: s.subject("T"),
        msgId: s.msgId("1"),
        data: { order: 7 },
        deliveryCount: 3,
        error: "boom on delivery 3",
      });
      expect(letter!.deadAt).toBeInstanceOf(Date);
      expect(graveyard.received[0]).toMatchObject({ subject: deadLetterSubject(durable), data: { order: 7 } });
      expect(graveyard.received[0]!.headers).toMatchObject({ "tidings-original-subject": s.subject("T"), "x-trace": "t1" });
      expect(await bus.deadLetters(s.durable("nothing-failed"))).toEqual([]);
    });

    it("dead-letters a message whose last allowed delivery never settles", async () => {
      const s = scope();
      const durable = s.durable("stuck");
      const stuck = gate();
      await bus.publish(s.subject("T"), "x", { msgId: s.msgId("1") });
      const options = { durable, filterSubject: s.subject("T"), maxDeliver: 1, ackWaitMs, concurrency: 2 };
      const c = await recordingConsumer(bus, options, () => stuck.promise);
      await waitUntil(async () => (await bus.deadLetters(durable)).length > 0);
      stuck.open();
      await c.stop();
      expect(c.received).toHaveLength(1);
      const [letter] = await bus.deadLetters(durable);
      expect(letter).toMatchObject({ msgId: s.msgId("1"), deliveryCount: 2 });
      expect(letter!.error).toMatch(/ack wait/);
    });

    it("dead-letters a message nak'ed on its last allowed delivery", async () => {
      const s = scope();
      const durable = s.durable("refused");
      await bus.publish(s.subject("T"), "x", { msgId: s.msgId("1") });
      const c = await recordingConsumer(bus, { durable, filterSubject: s.subject("T"), maxDeliver: 2, ackWaitMs }, (m) => m.nak(50));
      await waitUntil(async () => (await bus.deadLetters(durable)).length > 0);
      await sleep(200);
      await c.stop();
      expect(c.received.map((r) => r.deliveryCount)).toEqual([1, 2]);
      expect((await bus.deadLetters(durable))[0]!.error).toMatch(/nak/);
    });

    it("runs up to `concurrency` handlers at once", async () => {
      const s = scope();
      for (let n = 0; n < 6; n++) await bus.publish(s.subject("T"), n, { msgId: s.msgId(`${n}`) });
      let active = 0;
      let mostActive = 0;
      const options = { durable: s.durable("a"), filterSubject: s.subject("T"), maxDeliver: 3, ackWaitMs, concurrency: 3 };
      const c = await recordingConsumer(bus, options, async () => {
        mostActive = Math.max(mostActive, ++active);
        await sleep(150);
        active--;
      });
      await c.waitFor(6);
      await c.stop();
      expect(mostActive).toBe(3);
      expect(c.received.map((r) => r.data as number).sort()).toEqual([0, 1, 2, 3, 4, 5]);
      expect(c.received.every((r) => r.deliveryCount === 1)).toBe(true);
    });
  });
}
