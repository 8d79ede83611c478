import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createLogger, deterministicId, loadConfig, newId, systemClock } from "@tidings/core";
import { ensureTeam } from "@tidings/api";
import { eventSubject, redeliveredFromHeader } from "@tidings/bus";
import { recordingConsumer, waitUntil } from "@tidings/bus/testing";
import { deadLetterStream, teamStream } from "@tidings/domain";
import { deliveryDurable } from "@tidings/sagas";
import { openRuntime, type Runtime } from "../runtime.js";
import type { CliOutput } from "../cliOutput.js";
import { freshSettings } from "../testing/freshSettings.js";
import { UsageError } from "../usageError.js";
import { deadLettersAct, deadLettersList, deadLettersShow } from "./deadLetters.js";

const cleanups: (() => Promise<void> | void)[] = [];
const subject = eventSubject("email", "EmailQueued");
let runtime: Runtime;
let teamId: string;

beforeAll(async () => {
  const settings = await freshSettings({}, (undo) => cleanups.push(undo));
  runtime = await openRuntime(loadConfig(settings), createLogger("silent"));
  cleanups.push(() => runtime.close());
  ({ teamId } = await ensureTeam({ store: runtime.store, clock: systemClock }, "acme", { actor: "cli" }));
});
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

/** What a command printed on stdout, and its exit code. */
async function run(command: (out: CliOutput) => Promise<number>): Promise<{ code: number; lines: string[] }> {
  const lines: string[] = [];
  const code = await command({ out: (line) => void lines.push(line), err: () => {} });
  return { code, lines };
}

/** A letter of the delivery saga's consumer: the team's event, published and failed on its one allowed delivery. */
async function deadLetter(): Promise<{ id: string; msgId: string; eventId: string }> {
  const [event] = await runtime.store.readStream(teamStream(teamId));
  const msgId = newId();
  await runtime.bus.publish(subject, { ...event!, revision: "0", position: "0/0", createdAt: event!.createdAt.toISOString() }, { msgId });
  const failing = await runtime.bus.consume({ durable: deliveryDurable, filterSubject: subject, maxDeliver: 1, ackWaitMs: 5_000 }, () => {
    throw new Error("the relay refused the connection");
  });
  await waitUntil(async () => (await runtime.bus.deadLetters(deliveryDurable)).some((l) => l.msgId === msgId));
  await failing.stop();
  const letter = (await runtime.bus.deadLetters(deliveryDurable)).find((l) => l.msgId === msgId)!;
  return { id: `${deliveryDurable}-${letter.id}`, msgId, eventId: event!.id };
}

/** The delivery consumer once its fault is fixed: it takes every message. */
const fixedConsumer = () =>
  recordingConsumer(runtime.bus, { durable: deliveryDurable, filterSubject: subject, maxDeliver: 3, ackWaitMs: 5_000 });

const recordedActions = async (letter: { id: string; msgId: string }) =>
  (
    await runtime.store.readStream(
      deadLetterStream(deterministicId("dead-letter", deliveryDurable, letter.id.split("-").pop()!, letter.msgId)),
    )
  ).map((e) => [e.type, e.metadata.actor, e.metadata.teamId]);

describe("tidings deadletters", () => {
  it("lists and shows a saga's dead letter, then retries it once: the saga gets the message again, and the retry is recorded", async () => {
    const letter = await deadLetter();
    const listed = await run((out) => deadLettersList(runtime, false, out));
    expect(listed.code).toBe(0);
    expect(listed.lines[0]).toMatch(/^id\s+event\s+deliveries\s+dead at\s+error$/);
    expect(listed.lines.find((line) => line.startsWith(`${letter.id} `))).toMatch(
      /TeamCreated team-.* 1 .* the relay refused the connection$/,
    );
    const shown = await run((out) => deadLettersShow(runtime, letter.id, true, out));
    expect(JSON.parse(shown.lines[0]!)).toMatchObject({
      id: letter.id,
      consumer: deliveryDurable,
      subject,
      messageId: letter.msgId,
      event: { id: letter.eventId, type: "TeamCreated", teamId },
      deliveryCount: 1,
    });

    const fixed = await fixedConsumer();
    try {
      expect((await run((out) => deadLettersAct(runtime, "retry", { ref: letter.id, all: false }, out))).lines).toEqual([
        `retried ${letter.id} (TeamCreated ${teamStream(teamId)})`,
      ]);
      const [again] = await fixed.waitFor(1);
      expect(again!.headers[redeliveredFromHeader]).toBe(letter.msgId);
      await expect(run((out) => deadLettersAct(runtime, "retry", { ref: letter.id, all: false }, out))).rejects.toThrow(UsageError);
    } finally {
      await fixed.stop();
    }
    expect(fixed.received).toHaveLength(1);
    expect(await recordedActions(letter)).toEqual([["DeadLetterRetried", "cli", teamId]]);
    expect((await run((out) => deadLettersList(runtime, false, out))).lines).toEqual(["no dead letters"]);
  });

  it("retries every letter with --all, and drops one by its id", async () => {
    const [first, second] = [await deadLetter(), await deadLetter()];
    const fixed = await fixedConsumer();
    try {
      const retried = await run((out) => deadLettersAct(runtime, "retry", { ref: undefined, all: true }, out));
      expect(retried.lines.map((line) => line.split(" ")[1])).toEqual([first.id, second.id]);
      await fixed.waitFor(2);
    } finally {
      await fixed.stop();
    }
    expect(fixed.received).toHaveLength(2);
    const dropped = await deadLetter();
    expect((await run((out) => deadLettersAct(runtime, "drop", { ref: dropped.id, all: false }, out))).lines).toEqual([
      `dropped ${dropped.id} (TeamCreated ${teamStream(teamId)})`,
    ]);
    expect(await recordedActions(dropped)).toEqual([["DeadLetterDropped", "cli", teamId]]);
    expect(JSON.parse((await run((out) => deadLettersList(runtime, true, out))).lines[0]!)).toEqual({ deadLetters: [] });
  });

  it("names what is wrong with the call", async () => {
    for (const [action, target] of [
      ["retry", { ref: undefined, all: false }],
      ["retry", { ref: "delivery-1", all: true }],
      ["drop", { ref: undefined, all: true }],
      ["drop", { ref: "delivery-99999", all: false }],
      ["retry", { ref: "no-such-consumer-1", all: false }],
    ] as const)
      await expect(run((out) => deadLettersAct(runtime, action, target, out))).rejects.toThrow(UsageError);
    await expect(run((out) => deadLettersShow(runtime, "delivery-abc", false, out))).rejects.toThrow(/Dead letter not found/);
  });
});
