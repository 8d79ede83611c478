import { randomUUID } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import { simpleParser } from "mailparser";
import { describe, expect, it } from "vitest";
import { formatTimestamp } from "@tidings/core";
import { broadcastStream, emailStream } from "@tidings/domain";
import { refusingAppends } from "@tidings/eventstore/testing";
import { createBlobStore } from "@tidings/blobs";
import { createSmtpTransport } from "@tidings/mail";
import { testMode } from "@tidings/postgres";
import { bareDeliveryDeps } from "../testing/bareDeliveryDeps.js";
import { expectChain } from "../testing/expectChain.js";
import { deliveryToSinkForFile } from "../testing/deliveryToSink.js";
import { deliverEmail } from "./delivery.js";

describe(`delivery saga (${testMode() === "server" ? "PostgreSQL and NATS" : "PGlite and the in-process bus"}) into a loopback SMTP sink`, () => {
  const delivery = deliveryToSinkForFile();
  const { teamId, content, send, command, types, waitForType } = delivery;

  it("sends a queued email once, with its Message-ID, headers, parts and attachment, and records sent then delivered", async () => {
    const pdf = Buffer.from("%PDF-1.4 pretend");
    const blob = await createBlobStore(delivery.test.database).put(pdf);
    const attachment = {
      id: randomUUID(),
      filename: "invoice.pdf",
      contentType: "application/pdf",
      size: pdf.length,
      contentId: null,
      disposition: "attachment" as const,
      blob,
    };
    const emailId = await send(content({ attachments: [attachment] }));
    await waitForType(emailId, "EmailDelivered");
    expect(await types(emailId)).toEqual(["EmailQueued", "EmailSent", "EmailDelivered"]);
    const [message] = delivery.sink.withMessageId(`<${emailId}@tidings.test>`);
    expect(message!.envelope).toEqual({ from: "hello@acme.test", to: ["ann@example.test", "audit@example.test"] });
    const parsed = await simpleParser(message!.raw);
    expect(parsed.subject).toBe(`Hello ${emailId}`);
    expect(parsed.headers.get("x-entity-ref-id")).toBe(emailId);
    expect(parsed.html).toContain("<b>Ann</b>");
    expect(parsed.text?.trim()).toBe("Hi ANN");
    expect(parsed.headers.has("bcc")).toBe(false);
    expect(parsed.attachments.map((a) => [a.filename, a.content.toString()])).toEqual([["invoice.pdf", pdf.toString()]]);
    await sleep(300);
    expect(delivery.sink.received).toHaveLength(1);
    // The outcome continues the chain of the request that queued the email, caused by its EmailQueued.
    const [queued, ...outcome] = await delivery.store.readStream(emailStream(emailId));
    const chain = { actor: "saga:delivery", teamId, correlationId: queued!.metadata.correlationId! };
    expectChain(outcome, { ...chain, causes: [queued!.id, queued!.id] });
  });

  it("cancels, without sending it, a broadcast's email whose broadcast was canceled before its first attempt", async () => {
    const broadcastId = randomUUID();
    await delivery.store.append(
      broadcastStream(broadcastId),
      [
        {
          id: randomUUID(),
          type: "BroadcastCanceled",
          data: { broadcastId, canceledAt: formatTimestamp(new Date()) },
          metadata: { teamId, actor: "test" },
        },
      ],
      "no_stream",
    );
    const emailId = await send(content({ broadcastId }));
    await waitForType(emailId, "EmailCanceled");
    await sleep(300);
    expect(await types(emailId)).toEqual(["EmailQueued", "EmailCanceled"]);
    expect(delivery.sink.received).toHaveLength(0);
  });

  it("sends an email once when deliveries of it run side by side in one process (a redelivery beside the first, a retry timer)", async () => {
    // Slow replies keep each send open long enough for the others to start meanwhile.
    delivery.sink.delayReplies(300);
    const transport = createSmtpTransport({ url: delivery.sink.url, maxConnections: 3 });
    const deps = bareDeliveryDeps(delivery.test.database, { store: delivery.store, transport, slots: 3, subject: "once" });
    try {
      const emailId = await send(content());
      await Promise.all([deliverEmail(deps, emailId), deliverEmail(deps, emailId), deliverEmail(deps, emailId)]);
      await waitForType(emailId, "EmailDelivered");
      await sleep(500);
      expect(delivery.sink.received.filter((m) => m.messageId === `<${emailId}@tidings.test>`)).toHaveLength(1);
      expect(await types(emailId)).toEqual(["EmailQueued", "EmailSent", "EmailDelivered"]);
    } finally {
      delivery.sink.delayReplies(0);
      await transport.close();
    }
  });

  it("keeps trying to record a sent email's outcome while the store refuses it, instead of sending it again", async () => {
    const transport = createSmtpTransport({ url: delivery.sink.url, maxConnections: 1 });
    // Three refused appends stand in for the database restarting right after the server's 250.
    const away = refusingAppends(delivery.store, 3);
    const deps = bareDeliveryDeps(delivery.test.database, { store: away.store, transport, slots: 1, subject: "once" });
    try {
      const emailId = await send(content());
      await deliverEmail(deps, emailId);
      expect(away.attempts).toBeGreaterThan(3);
      expect(await types(emailId)).toEqual(["EmailQueued", "EmailSent", "EmailDelivered"]);
      await deliverEmail(deps, emailId);
      expect(delivery.sink.received.filter((m) => m.messageId === `<${emailId}@tidings.test>`)).toHaveLength(1);
    } finally {
      await transport.close();
    }
  });

  it("fails an email whose attachment bytes are missing from the blob store, without sending it", async () => {
    const attachment = {
      id: randomUUID(),
      filename: "gone.pdf",
      contentType: "application/pdf",
      size: 3,
      contentId: null,
      disposition: "attachment" as const,
      blob: "f".repeat(64),
    };
    const emailId = await send(content({ attachments: [attachment] }));
    await waitForType(emailId, "EmailFailed");
    expect(await types(emailId)).toEqual(["EmailQueued", "EmailFailed"]);
    expect(delivery.sink.received).toHaveLength(0);
  });

  it("queues a scheduled email when its time comes, not before, and sends it", async () => {
    const at = new Date(Date.now() + 2_000);
    const emailId = await send(content(), formatTimestamp(at));
    await waitForType(emailId, "EmailDelivered");
    const [message] = delivery.sink.withMessageId(`<${emailId}@tidings.test>`);
    expect(message!.receivedAt.getTime()).toBeGreaterThanOrEqual(at.getTime());
    // The timer's EmailQueued is in the chain of the request that scheduled the email, caused by its EmailScheduled.
    const [scheduled, queued, ...outcome] = await delivery.store.readStream(emailStream(emailId));
    // Not before its time, by the store's clock: a look at the stream just before it would race a busy
    // machine's timers (how late it fires is bench's business).
    expect(queued!.type).toBe("EmailQueued");
    expect(queued!.createdAt.getTime()).toBeGreaterThanOrEqual(at.getTime());
    const correlationId = scheduled!.metadata.correlationId!;
    expectChain([queued!], { actor: "saga:scheduler", teamId, correlationId, causes: [scheduled!.id] });
    expectChain(outcome, { actor: "saga:delivery", teamId, correlationId, causes: [queued!.id, queued!.id] });
  });

  it("sends a rescheduled email at its new time and never a canceled one", async () => {
    // Far enough ahead that the reschedule and the cancel come first on a loaded machine too.
    const rescheduled = await send(content(), formatTimestamp(new Date(Date.now() + 3_000)));
    const canceled = await send(content(), formatTimestamp(new Date(Date.now() + 3_000)));
    const newTime = new Date(Date.now() + 4_500);
    await command(rescheduled, {
      type: "RescheduleEmail",
      teamId,
      scheduledAt: formatTimestamp(newTime),
      now: formatTimestamp(new Date()),
    });
    await command(canceled, { type: "CancelEmail", teamId, now: formatTimestamp(new Date()) });
    await waitForType(rescheduled, "EmailDelivered");
    expect(delivery.sink.withMessageId(`<${rescheduled}@tidings.test>`)[0]!.receivedAt.getTime()).toBeGreaterThanOrEqual(newTime.getTime());
    await sleep(300);
    expect(await types(canceled)).toEqual(["EmailScheduled", "EmailCanceled"]);
    expect(delivery.sink.withMessageId(`<${canceled}@tidings.test>`)).toHaveLength(0);
  });
});
