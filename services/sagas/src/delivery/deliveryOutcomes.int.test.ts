import { setTimeout as sleep } from "node:timers/promises";
import { simpleParser } from "mailparser";
import { describe, expect, it } from "vitest";
import { formatTimestamp } from "@tidings/core";
import { emailDecider, emailStream, fold, hasFinalOutcome, type EmailEvent } from "@tidings/domain";
import { testMode } from "@tidings/postgres";
import { sql } from "kysely";
import { deliveryToSinkForFile } from "../testing/deliveryToSink.js";
import { expectChain } from "../testing/expectChain.js";

/** What the server's replies, recipient by recipient, make of an email: bounces, deferrals and their retries, suppressions. */
describe(`delivery outcomes (${testMode() === "server" ? "PostgreSQL and NATS" : "PGlite and the in-process bus"}) from a loopback SMTP sink`, () => {
  const delivery = deliveryToSinkForFile();
  const { content, send, types, waitForType } = delivery;

  /** Until the stream's fold has no recipient left to send to. */
  const waitForRecipientsSettled = async (emailId: string, timeoutMs = 10_000) => {
    const deadline = Date.now() + timeoutMs;
    const settled = async () =>
      hasFinalOutcome(fold(emailDecider, (await delivery.store.readStream(emailStream(emailId))) as unknown as EmailEvent[]));
    while (!(await settled())) {
      if (Date.now() > deadline) throw new Error(`recipients still pending; stream has ${(await types(emailId)).join(", ")}`);
      await sleep(50);
    }
  };

  it("records a 5xx as a permanent bounce of the refused recipient and sends nothing more", async () => {
    delivery.sink.refuseRecipient("gone@example.test", { code: 550, message: "5.1.1 no such user" });
    const emailId = await send(content({ to: ["gone@example.test"], bcc: [] }));
    await waitForType(emailId, "EmailBounced");
    const bounced = (await delivery.store.readStream(emailStream(emailId))).find((e) => e.type === "EmailBounced")!.data as {
      recipients: string[];
      code: number;
      bounce: { type: string };
    };
    expect(bounced).toMatchObject({ recipients: ["gone@example.test"], code: 550, bounce: { type: "permanent" } });
    expect(delivery.sink.received).toHaveLength(0);
  });

  it("suppresses at delivery an email accepted minutes before its recipient bounced, without reaching the sink", async () => {
    delivery.sink.refuseRecipient("bounced-later@example.test", { code: 550, message: "5.1.1 no such user" });
    await waitForType(await send(content({ to: ["bounced-later@example.test"], bcc: [] })), "EmailBounced");
    const deadline = Date.now() + 60_000;
    while (
      (await sql`SELECT 1 FROM suppressions WHERE email = 'bounced-later@example.test'`.execute(delivery.test.database.db)).rows.length ===
      0
    ) {
      if (Date.now() > deadline) throw new Error("the bounce never reached the suppression list");
      await sleep(50);
    }
    delivery.sink.reset();
    const acceptedLongAgo = formatTimestamp(new Date(Date.now() - 5 * 60_000));
    const emailId = await send(content({ to: ["Later <Bounced-Later@example.test>"], bcc: [], createdAt: acceptedLongAgo }));
    await waitForType(emailId, "EmailSuppressed");
    expect(await types(emailId)).toEqual(["EmailQueued", "EmailSuppressed"]);
    expect(delivery.sink.received).toHaveLength(0);
  });

  it("records a 4xx as delivery_delayed and retries on the backoff until the server takes it", async () => {
    delivery.sink.failNext(2, { code: 451, message: "4.3.0 try again later" });
    const emailId = await send(content());
    await waitForType(emailId, "EmailDelivered");
    expect(await types(emailId)).toEqual(["EmailQueued", "EmailDeliveryDelayed", "EmailDeliveryDelayed", "EmailSent", "EmailDelivered"]);
    expect(delivery.sink.refusedMessages).toBe(2);
    expect(delivery.sink.withMessageId(`<${emailId}@tidings.test>`)).toHaveLength(1);
    // Each retry, fired by its timer, is caused by the deferral before it, in the chain of the queuing request.
    const [queued, firstDelay, secondDelay, ...outcome] = await delivery.store.readStream(emailStream(emailId));
    const chain = { actor: "saga:delivery", teamId: delivery.teamId, correlationId: queued!.metadata.correlationId! };
    expectChain([firstDelay!, secondDelay!, ...outcome], {
      ...chain,
      causes: [queued!.id, firstDelay!.id, secondDelay!.id, secondDelay!.id],
    });
  });

  const copiesPerRecipient = (emailId: string) => {
    const copies: Record<string, number> = {};
    for (const message of delivery.sink.withMessageId(`<${emailId}@tidings.test>`))
      for (const to of message.envelope.to) copies[to] = (copies[to] ?? 0) + 1;
    return copies;
  };

  it("retries a partially deferred email only to the deferred recipient, so each recipient gets exactly one copy of the same bytes", async () => {
    delivery.sink.refuseRecipient("bob@example.test", { code: 451, message: "4.2.0 greylisted" }, 1);
    const emailId = await send(content({ to: ["Ann <ann@example.test>", "bob@example.test"] }));
    await waitForType(emailId, "EmailDeliveryDelayed");
    await delivery.sink.waitFor(() => copiesPerRecipient(emailId)["bob@example.test"] === 1);
    await waitForRecipientsSettled(emailId);
    expect(await types(emailId)).toEqual(["EmailQueued", "EmailSent", "EmailDelivered", "EmailDeliveryDelayed", "EmailDelivered"]);
    const [first, retry] = delivery.sink.withMessageId(`<${emailId}@tidings.test>`);
    expect([first!.envelope.to, retry!.envelope.to]).toEqual([["ann@example.test", "audit@example.test"], ["bob@example.test"]]);
    expect(retry!.raw.equals(first!.raw)).toBe(true);
    const to = (await simpleParser(retry!.raw)).to;
    expect((Array.isArray(to) ? to : [to]).flatMap((t) => t!.value.map((a) => a.address))).toEqual([
      "ann@example.test",
      "bob@example.test",
    ]);
    await sleep(700);
    expect(copiesPerRecipient(emailId)).toEqual({ "ann@example.test": 1, "audit@example.test": 1, "bob@example.test": 1 });
  });

  it("bounces one recipient alone, suppressing only that address, and delivers to the others, retrying the deferred", async () => {
    delivery.sink.refuseRecipient("left@example.test", { code: 550, message: "5.1.1 no such user" });
    delivery.sink.refuseRecipient("bob@example.test", { code: 452, message: "4.2.2 mailbox full" }, 2);
    const emailId = await send(content({ to: ["ann@example.test", "left@example.test", "bob@example.test"] }));
    const suppressed = async () =>
      (await sql<{ email: string }>`SELECT email FROM suppressions WHERE source_id = ${emailId}`.execute(delivery.test.database.db)).rows;
    await waitForRecipientsSettled(emailId);
    const recorded = (await delivery.store.readStream(emailStream(emailId))).map((e) => [
      e.type,
      (e.data as { recipients?: string[] }).recipients,
    ]);
    expect(recorded).toEqual([
      ["EmailQueued", undefined],
      ["EmailSent", undefined],
      ["EmailBounced", ["left@example.test"]],
      ["EmailDelivered", ["ann@example.test", "audit@example.test"]],
      ["EmailDeliveryDelayed", ["bob@example.test"]],
      ["EmailDeliveryDelayed", ["bob@example.test"]],
      ["EmailDelivered", ["bob@example.test"]],
    ]);
    const deadline = Date.now() + 60_000;
    while ((await suppressed()).length === 0 && Date.now() < deadline) await sleep(50);
    expect(await suppressed()).toEqual([{ email: "left@example.test" }]);
    expect(copiesPerRecipient(emailId)).toEqual({ "ann@example.test": 1, "audit@example.test": 1, "bob@example.test": 1 });
  });

  it("records failed instead of a third deferral whose retry would fall more than 24 h after the first", async () => {
    delivery.sink.failNext(3, { code: 421, message: "4.7.0 too busy" });
    const emailId = await send(content());
    await waitForType(emailId, "EmailFailed");
    expect(await types(emailId)).toEqual(["EmailQueued", "EmailDeliveryDelayed", "EmailDeliveryDelayed", "EmailFailed"]);
    const failed = (await delivery.store.readStream(emailStream(emailId))).at(-1)!.data as { reason: string; code: number };
    expect(failed).toMatchObject({ code: 421, reason: expect.stringContaining("24 hours") });
  });
});
