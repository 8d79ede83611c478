import { setTimeout as sleep } from "node:timers/promises";
import { describe, expect, it } from "vitest";
import { createLogger } from "@tidings/core";
import { handleDelivery, type Delivery } from "./delivery.js";
import { EventLoopGaps } from "./eventLoopGaps.js";
import type { BusMessage, ConsumerOptions } from "./port.js";

/** Holds the thread, as a starved or paused process does: no timer, no I/O, no heartbeat meanwhile. */
function standStill(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until);
}

describe("the event loop's gaps", () => {
  it("are seen once the loop moves again, even before the late tick runs, and only from when they ended", async () => {
    const gaps = new EventLoopGaps(10, 100);
    gaps.watch();
    await sleep(50);
    // A look takes in any gap up to now, so that a gap of a busy machine's own falls before the reading.
    const now = () => (gaps.stoodStillSince(0, 0), performance.now());
    const before = now();
    expect(gaps.stoodStillSince(before, 300)).toBe(false);
    standStill(400);
    expect(gaps.stoodStillSince(before, 300)).toBe(true);
    expect(gaps.stoodStillSince(before, 2_000)).toBe(false);
    await sleep(50);
    expect(gaps.stoodStillSince(now(), 300)).toBe(false);
  });

  it("start with the watch: the time before it, a process's start-up say, is no gap", async () => {
    const gaps = new EventLoopGaps(10, 100);
    await sleep(400);
    expect(gaps.stoodStillSince(0, 200)).toBe(false);
    gaps.watch();
    expect(gaps.stoodStillSince(0, 200)).toBe(false);
    await sleep(50);
    expect(gaps.stoodStillSince(0, 200)).toBe(false);
  });

  it("are told to a listener when they reach its length", async () => {
    const gaps = new EventLoopGaps(10, 100);
    const heard: number[] = [];
    gaps.onGap(300, (length) => heard.push(length));
    gaps.watch();
    await sleep(50);
    gaps.stoodStillSince(0, 0);
    standStill(400);
    await sleep(50);
    expect(heard).toHaveLength(1);
    expect(heard[0]).toBeGreaterThanOrEqual(300);
    // Stopping twice stops only its own listener.
    const other: number[] = [];
    const stopFirst = gaps.onGap(300, (length) => other.push(length));
    const stopSecond = gaps.onGap(300, (length) => other.push(-length));
    stopFirst();
    stopFirst();
    standStill(400);
    await sleep(50);
    expect(other).toHaveLength(1);
    expect(other[0]).toBeLessThan(0);
    stopSecond();
  });
});

/** One delivery of a message through the port's settlement rules, its handler given the message. */
async function deliver(options: Partial<ConsumerOptions>, handler: (message: BusMessage) => Promise<void>, sole = false): Promise<void> {
  const delivery: Delivery = {
    subject: "events.email.EmailQueued",
    data: {},
    msgId: "m1",
    headers: {},
    deliveryCount: 1,
    ack: async () => {},
    nak: async () => {},
    working: async () => {},
  };
  await handleDelivery(
    delivery,
    handler,
    { durable: "held", filterSubject: "events.>", maxDeliver: 3, ...options },
    async () => {},
    createLogger("silent"),
    new AbortController().signal,
    sole,
  );
}

describe("a delivered message's hold", () => {
  it("stands while the process keeps moving and its heartbeat goes", async () => {
    let held: boolean[] = [];
    await deliver({ ackWaitMs: 20_000, heartbeat: true }, async (message) => {
      held.push(message.stillHeld());
      await sleep(300);
      held.push(message.stillHeld());
    });
    expect(held).toEqual([true, true]);
    held = [];
    await deliver({ ackWaitMs: 20_000 }, async (message) => {
      held.push(message.stillHeld());
    });
    expect(held).toEqual([true]);
  });

  it("may have lapsed once the process stood still for half the ack wait, its heartbeat held back with it", async () => {
    let held: boolean[] = [];
    await deliver({ ackWaitMs: 1_000, heartbeat: true }, async (message) => {
      standStill(700);
      held.push(message.stillHeld());
    });
    expect(held).toEqual([false]);
    held = [];
    // Without a heartbeat, half the ack wait is all the hold there is.
    await deliver({ ackWaitMs: 400 }, async (message) => {
      await sleep(300);
      held.push(message.stillHeld());
    });
    expect(held).toEqual([false]);
  });

  it("stands however long the process stood still when no other process consumes the durable", async () => {
    const held: boolean[] = [];
    await deliver(
      { ackWaitMs: 1_000, heartbeat: true },
      async (message) => {
        standStill(700);
        held.push(message.stillHeld());
      },
      true,
    );
    expect(held).toEqual([true]);
  });
});
