import { describe, expect, it } from "vitest";
import { redeliverDeadLetter, redeliveredFromHeader } from "../redeliverDeadLetter.js";
import { recordingConsumer, sleep, waitUntil } from "../recordingConsumer.js";
import type { Bus, DeadLetter } from "../port.js";
import type { BusContractContext } from "./contract.js";
import { ackWaitMs, scope } from "./contractScope.js";

/** A message published to `subject` and dead-lettered by a consumer `durable` whose handler always throws. */
async function deadLetterOne(bus: Bus, s: ReturnType<typeof scope>, durable: string, n: number): Promise<DeadLetter> {
  await bus.publish(s.subject("T"), { n }, { msgId: s.msgId(`${n}`), headers: { "x-trace": `t${n}` } });
  const failing = await recordingConsumer(
    bus,
    { durable, filterSubject: s.subject("T"), maxDeliver: 2, ackWaitMs, backoffMs: () => 50 },
    () => {
      throw new Error(`fault ${n}`);
    },
  );
  await waitUntil(async () => (await bus.deadLetters(durable)).some((letter) => letter.msgId === s.msgId(`${n}`)));
  await failing.stop();
  return (await bus.deadLetters(durable)).find((letter) => letter.msgId === s.msgId(`${n}`))!;
}

/** What an operator does with a dead letter (docs/operations.md): read it by id, redeliver it once, or drop it. */
export function deadLettersContract({ bus }: BusContractContext): void {
  describe("dead letters", () => {
    it("reads a letter by its id, as the original message with its own headers, and only under its durable", async () => {
      const s = scope();
      const durable = s.durable("reader");
      const letter = await deadLetterOne(bus, s, durable, 1);
      expect(letter).toMatchObject({ subject: s.subject("T"), msgId: s.msgId("1"), data: { n: 1 }, deliveryCount: 2, error: "fault 1" });
      expect(letter.headers).toEqual({ "x-trace": "t1" });
      expect(await bus.deadLetter(durable, letter.id)).toEqual(letter);
      expect(await bus.deadLetter(s.durable("another"), letter.id)).toBeUndefined();
      for (const id of ["0", "-1", "abc", "1e3", "99999999999999"]) expect(await bus.deadLetter(durable, id)).toBeUndefined();
    });

    it("redelivers a letter once on its original subject, body and headers, and forgets it", async () => {
      const s = scope();
      const durable = s.durable("retried");
      const letter = await deadLetterOne(bus, s, durable, 2);
      const fixed = await recordingConsumer(bus, { durable, filterSubject: s.subject("T"), maxDeliver: 2, ackWaitMs });
      await redeliverDeadLetter(bus, durable, letter);
      const [redelivered] = await fixed.waitFor(1);
      // A repeat of the same retry, as after a crash between its publish and its removal, is dropped.
      await redeliverDeadLetter(bus, durable, letter);
      await sleep(300);
      await fixed.stop();
      expect(fixed.received).toHaveLength(1);
      expect(redelivered).toMatchObject({ subject: s.subject("T"), data: { n: 2 }, deliveryCount: 1 });
      expect(redelivered!.headers).toMatchObject({ "x-trace": "t2", [redeliveredFromHeader]: s.msgId("2") });
      expect(await bus.deadLetter(durable, letter.id)).toBeUndefined();
      expect(await bus.deadLetters(durable)).toEqual([]);
    });

    it("drops a letter once, leaving the durable's others", async () => {
      const s = scope();
      const durable = s.durable("dropped");
      const first = await deadLetterOne(bus, s, durable, 3);
      const second = await deadLetterOne(bus, s, durable, 4);
      expect(await bus.removeDeadLetter(s.durable("another"), first.id)).toBe(false);
      expect(await bus.removeDeadLetter(durable, first.id)).toBe(true);
      expect(await bus.removeDeadLetter(durable, first.id)).toBe(false);
      expect((await bus.deadLetters(durable)).map((letter) => letter.id)).toEqual([second.id]);
    });
  });
}
