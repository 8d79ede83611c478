import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { deterministicId, newId } from "@tidings/core";
import { createInProcessBus, eventSubject, redeliveredFromHeader, type Bus } from "@tidings/bus";
import { recordingConsumer, waitUntil } from "@tidings/bus/testing";
import { deadLetterStream, teamStream } from "@tidings/domain";
import type { ApiInstance } from "../app.js";
import { apiTestFile } from "../testing/apiTestFile.js";
import { jsonCaller, wireError } from "../testing/jsonCalls.js";
import type { TestKey } from "../testing/testServices.js";

const consumer = "delivery-under-test";
const subject = eventSubject("team", "TeamCreated");
const file = apiTestFile("dead-letters");
let bus: Bus;
let app: ApiInstance;
let call: ReturnType<typeof jsonCaller>;

beforeAll(async () => {
  bus = await createInProcessBus(file.testServices.test.database);
  app = await file.testServices.app({ deadLetters: { bus, durables: [consumer] } });
  call = jsonCaller(
    () => app,
    () => file.admin,
  );
});
afterAll(() => bus?.close());

/** The team's first recorded event, as the forwarder publishes it, dead-lettered by a consumer whose handler always fails. */
async function deadLetterOf(key: TestKey): Promise<{ id: string; eventId: string; msgId: string }> {
  const [event] = await file.testServices.store.readStream(teamStream(key.teamId));
  const body = { ...event!, revision: "0", position: "0/0", createdAt: event!.createdAt.toISOString() };
  const msgId = newId();
  await bus.publish(subject, body, { msgId });
  const failing = await bus.consume({ durable: consumer, filterSubject: subject, maxDeliver: 1, ackWaitMs: 5_000 }, () => {
    throw new Error("relay refused the connection");
  });
  let found: { id: string } | undefined;
  await waitUntil(async () => {
    const listed = await call("GET", "/admin/dead-letters", undefined, key);
    found = (listed.body.data as { id: string; message_id: string }[]).find((l) => l.message_id === msgId);
    return found !== undefined;
  });
  await failing.stop();
  return { id: found!.id, eventId: event!.id, msgId };
}

describe("/admin/dead-letters", () => {
  it("lists the team's letters only, and shows one", async () => {
    const ours = await deadLetterOf(file.admin);
    const theirs = await deadLetterOf(file.other);
    const listed = await call("GET", "/admin/dead-letters");
    expect(listed.status).toBe(200);
    const ids = (listed.body.data as { id: string }[]).map((l) => l.id);
    expect(ids).toContain(ours.id);
    expect(ids).not.toContain(theirs.id);
    const shown = await call("GET", `/admin/dead-letters/${ours.id}`);
    expect(shown).toMatchObject({
      status: 200,
      body: {
        object: "dead_letter",
        id: ours.id,
        consumer,
        subject,
        event: { id: ours.eventId, type: "TeamCreated", stream_id: teamStream(file.admin.teamId) },
        delivery_count: 1,
        error: "relay refused the connection",
      },
    });
    expect(await call("GET", `/admin/dead-letters/${theirs.id}`)).toEqual(wireError(404, "not_found", "Dead letter not found"));
    for (const id of ["nothing", `${consumer}-x`, `other-consumer-1`, `${consumer}-99999999`])
      expect((await call("GET", `/admin/dead-letters/${id}`)).status).toBe(404);
  });

  it("retries a letter once: its message comes back to the consumer, the retry is recorded with the key as actor", async () => {
    const letter = await deadLetterOf(file.admin);
    const fixed = await recordingConsumer(bus, { durable: consumer, filterSubject: subject, maxDeliver: 3, ackWaitMs: 5_000 });
    try {
      const retried = await call("POST", `/admin/dead-letters/${letter.id}/retry`);
      expect(retried).toMatchObject({ status: 200, body: { id: letter.id, retried: true } });
      const [again] = await fixed.waitFor(1);
      expect((again!.data as { id: string }).id).toBe(letter.eventId);
      expect(again!.headers[redeliveredFromHeader]).toBeTruthy();
      expect((await call("POST", `/admin/dead-letters/${letter.id}/retry`)).status).toBe(404);
    } finally {
      await fixed.stop();
    }
    expect(fixed.received).toHaveLength(1);
    const seq = letter.id.slice(consumer.length + 1);
    const records = await file.testServices.store.readStream(deadLetterStream(deterministicId("dead-letter", consumer, seq, letter.msgId)));
    expect(records.map((r) => [r.type, r.metadata.actor, r.metadata.teamId])).toEqual([
      ["DeadLetterRetried", `api:${file.admin.id}`, file.admin.teamId],
    ]);
  });

  it("drops a letter once", async () => {
    const letter = await deadLetterOf(file.admin);
    expect(await call("DELETE", `/admin/dead-letters/${letter.id}`, undefined, file.other)).toEqual(
      wireError(404, "not_found", "Dead letter not found"),
    );
    expect(await call("DELETE", `/admin/dead-letters/${letter.id}`)).toMatchObject({ status: 200, body: { id: letter.id, dropped: true } });
    expect((await call("DELETE", `/admin/dead-letters/${letter.id}`)).status).toBe(404);
    expect((await call("GET", `/admin/dead-letters/${letter.id}`)).status).toBe(404);
  });

  it("is not for sending-access keys", async () => {
    const sender = await file.testServices.aKey("dead-letters-team", { permission: "sending_access" });
    expect((await call("GET", "/admin/dead-letters", undefined, sender)).status).toBe(401);
  });
});
