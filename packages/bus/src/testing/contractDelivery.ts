import { describe, expect, it } from "vitest";
import { recordingConsumer, sleep, waitUntil } from "../recordingConsumer.js";
import type { BusContractContext } from "./contract.js";
import { ackWaitMs, scope } from "./contractScope.js";

/** What consumers receive: every message published, once per durable, from where each durable left off. */
export function deliveryContract({ bus, fixture, restart }: BusContractContext): void {
  describe("delivery", () => {
    it("delivers a published message with its subject, data, msgId and headers", async () => {
      const s = scope();
      await bus.publish(s.subject("Thing"), { n: 1, text: "é" }, { msgId: s.msgId("1"), headers: { "x-trace": "abc" } });
      const c = await recordingConsumer(bus, { durable: s.durable("a"), filterSubject: s.subject("*"), maxDeliver: 3, ackWaitMs });
      const [got] = await c.waitFor(1);
      await c.stop();
      expect(got).toMatchObject({ subject: s.subject("Thing"), data: { n: 1, text: "é" }, msgId: s.msgId("1"), deliveryCount: 1 });
      expect(got!.headers).toEqual({ "x-trace": "abc" });
    });

    it("drops a second publish with the same msgId", async () => {
      const s = scope();
      await bus.publish(s.subject("Thing"), { v: 1 }, { msgId: s.msgId("1") });
      await bus.publish(s.subject("Thing"), { v: 2 }, { msgId: s.msgId("1") });
      await Promise.all([
        bus.publish(s.subject("Thing"), { v: 3 }, { msgId: s.msgId("2") }),
        bus.publish(s.subject("Thing"), { v: 4 }, { msgId: s.msgId("2") }),
      ]);
      await bus.publish(s.subject("Thing"), { v: 5 }, { msgId: s.msgId("3") });
      const c = await recordingConsumer(bus, { durable: s.durable("a"), filterSubject: s.subject(">"), maxDeliver: 3, ackWaitMs });
      await waitUntil(() => c.received.some((r) => r.msgId === s.msgId("3")));
      await c.stop();
      expect(c.received.map((r) => r.data)).toEqual([{ v: 1 }, { v: 3 }, { v: 5 }]);
    });

    it("keeps the call order of publishes made without awaiting each other", async () => {
      const s = scope();
      await Promise.all([...Array(50).keys()].map((n) => bus.publish(s.subject("T"), n, { msgId: s.msgId(`${n}`) })));
      const c = await recordingConsumer(bus, { durable: s.durable("a"), filterSubject: s.subject("T"), maxDeliver: 3, ackWaitMs });
      await c.waitFor(50);
      await c.stop();
      expect(c.received.map((r) => r.data)).toEqual([...Array(50).keys()]);
    });

    it("starts a new durable at the first message of its filter, and skips other subjects", async () => {
      const s = scope();
      await bus.publish(s.subject("A"), "a1", { msgId: s.msgId("a1") });
      await bus.publish(s.subject("B"), "b1", { msgId: s.msgId("b1") });
      await bus.publish(s.subject("A"), "a2", { msgId: s.msgId("a2") });
      const onlyA = await recordingConsumer(bus, { durable: s.durable("a"), filterSubject: s.subject("A"), maxDeliver: 3, ackWaitMs });
      const all = await recordingConsumer(bus, { durable: s.durable("all"), filterSubject: s.subject("*"), maxDeliver: 3, ackWaitMs });
      await onlyA.waitFor(2);
      await all.waitFor(3);
      await bus.publish(s.subject("A"), "a3", { msgId: s.msgId("a3") });
      await onlyA.waitFor(3);
      await Promise.all([onlyA.stop(), all.stop()]);
      expect(onlyA.received.map((r) => r.data)).toEqual(["a1", "a2", "a3"]);
      expect(all.received.slice(0, 3).map((r) => r.data)).toEqual(["a1", "b1", "a2"]);
    });

    it("resumes a durable where it left off after the consumer restarts", async () => {
      const s = scope();
      const options = { durable: s.durable("a"), filterSubject: s.subject(">"), maxDeliver: 3, ackWaitMs };
      await bus.publish(s.subject("T"), 1, { msgId: s.msgId("1") });
      await bus.publish(s.subject("T"), 2, { msgId: s.msgId("2") });
      const first = await recordingConsumer(bus, options);
      await first.waitFor(2);
      await first.stop();
      await bus.publish(s.subject("T"), 3, { msgId: s.msgId("3") });
      const second = await recordingConsumer(bus, options);
      await second.waitFor(1);
      await sleep(ackWaitMs + 300);
      await second.stop();
      expect(first.received.map((r) => r.data)).toEqual([1, 2]);
      expect(second.received.map((r) => [r.data, r.deliveryCount])).toEqual([[3, 1]]);
    });

    it("resumes a durable where it left off after the bus restarts", async () => {
      const s = scope();
      const options = { durable: s.durable("a"), filterSubject: s.subject(">"), maxDeliver: 3, ackWaitMs };
      await bus.publish(s.subject("T"), 1, { msgId: s.msgId("1") });
      const first = await recordingConsumer(bus, options);
      await first.waitFor(1);
      await first.stop();
      await bus.publish(s.subject("T"), 2, { msgId: s.msgId("2") });
      await restart();
      await bus.publish(s.subject("T"), 3, { msgId: s.msgId("3") });
      await bus.publish(s.subject("T"), 1, { msgId: s.msgId("1") });
      const second = await recordingConsumer(bus, options);
      await second.waitFor(2);
      await sleep(ackWaitMs + 300);
      await second.stop();
      expect(second.received.map((r) => [r.data, r.deliveryCount])).toEqual([
        [2, 1],
        [3, 1],
      ]);
    });

    it("gives every message to each of two durables", async () => {
      const s = scope();
      for (const n of [1, 2, 3]) await bus.publish(s.subject("T"), n, { msgId: s.msgId(`${n}`) });
      const a = await recordingConsumer(bus, { durable: s.durable("a"), filterSubject: s.subject("T"), maxDeliver: 3, ackWaitMs });
      const b = await recordingConsumer(bus, { durable: s.durable("b"), filterSubject: s.subject("T"), maxDeliver: 3, ackWaitMs });
      await Promise.all([a.waitFor(3), b.waitFor(3)]);
      await Promise.all([a.stop(), b.stop()]);
      expect(a.received.map((r) => r.data)).toEqual([1, 2, 3]);
      expect(b.received.map((r) => r.data)).toEqual([1, 2, 3]);
    });

    it("splits one durable's messages between two processes, each message to one of them", async () => {
      const s = scope();
      const other = await fixture().openBus();
      const options = { durable: s.durable("shared"), filterSubject: s.subject("T"), maxDeliver: 3, ackWaitMs };
      const slowly = () => sleep(20);
      const here = await recordingConsumer(bus, options, slowly);
      const there = await recordingConsumer(other, options, slowly);
      for (let n = 0; n < 20; n++) await bus.publish(s.subject("T"), n, { msgId: s.msgId(`${n}`) });
      await waitUntil(() => here.received.length + there.received.length >= 20);
      await Promise.all([here.stop(), there.stop()]);
      await other.close();
      const all = [...here.received, ...there.received].map((r) => r.data as number).sort((x, y) => x - y);
      expect(all).toEqual([...Array(20).keys()]);
    });
  });
}
