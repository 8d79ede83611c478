import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { deadLetterSubject, type Bus, type BusMessage } from "../port.js";
import { gate, recordingConsumer, sleep, waitUntil } from "../recordingConsumer.js";

export interface BusFixture {
  /** The bus under test. */
  bus: Bus;
  /** Another bus on the same storage, as a second process of the service would open it. */
  openBus(): Promise<Bus>;
  /** Closes every bus and the storage handles under them, as at process exit, and opens a new bus on the same storage. */
  restart(): Promise<Bus>;
  dispose(): Promise<void>;
}

const ackWaitMs = 1_000;
let scopes = 0;

/** Subjects and durables of one test, so that tests sharing a fixture never see each other's messages. */
function scope() {
  const ns = `c${++scopes}${Math.random().toString(36).slice(2, 8)}`;
  return {
    subject: (name: string) => `events.${ns}.${name}`,
    durable: (name: string) => `${ns}-${name}`,
    msgId: (name: string) => `${ns}-${name}`,
  };
}

/** The semantics every bus adapter must keep (DESIGN §5). Each adapter's test file calls this once. */
export function busContract(adapter: string, createFixture: () => Promise<BusFixture>): void {
  describe(`bus contract: ${adapter}`, () => {
    let fixture: BusFixture;
    let bus: Bus;

    beforeAll(async () => {
      fixture = await createFixture();
      bus = fixture.bus;
    });
    afterAll(async () => {
      await fixture?.dispose();
    });

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
      bus = await fixture.restart();
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
      const other = await fixture.openBus();
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
