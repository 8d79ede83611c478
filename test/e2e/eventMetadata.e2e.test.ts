import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { emailStream, emailWebhookEvents } from "@tidings/domain";
import type { RecordedEvent } from "@tidings/eventstore";
import { runCommand } from "@tidings/cli";
import { startMailingServer, type MailingServer } from "../support/mailingServer.js";
import { startWebhookReceiver, type WebhookReceiver } from "../support/webhookReceiver.js";
import type { EventType } from "../support/webhookSuite.js";

// Every email type but inbound mail's: what an email sent through the API can give rise to.
const emailTypes = emailWebhookEvents.types.filter((type) => type !== "email.received") as EventType[];

/**
 * The metadata of every event the store holds after one email, sent by the SDK, was delivered to a real SMTP
 * sink and its `email.*` webhooks to a real receiver (docs/events.md, Metadata): each says when, who and in which
 * chain, and the chain of the email and of its webhook deliveries is the POST's request, as GET /logs names it.
 */
describe("event metadata, from a request down to the webhooks of its email", () => {
  let mailing: MailingServer;
  let receiver: WebhookReceiver;

  beforeAll(async () => {
    receiver = await startWebhookReceiver();
    mailing = await startMailingServer({ WEBHOOK_ALLOW_PRIVATE: "true" });
  });
  afterAll(async () => {
    await mailing?.stop();
    await receiver?.close();
  });

  it("gives every event occurredAt, actor and correlationId, the email's chain the request's id, and audit find on that id lists them", async () => {
    const { resend, sink, server } = mailing;
    const store = server.serving.runtime.store;
    const webhook = await resend.webhooks.create({ endpoint: `${receiver.url}/hook`, events: emailTypes });
    expect(webhook.error).toBeNull();
    const sent = await resend.emails.send({ from: "Acme <hello@acme.test>", to: "ann@example.test", subject: "Hi", html: "<p>Hi</p>" });
    expect(sent.error).toBeNull();
    const emailId = sent.data!.id;
    const requestId = sent.headers!["x-request-id"]!;
    // The id the answer gives is the request's entry in GET /logs.
    const logged = await resend.logs.get(requestId);
    expect(logged.data).toMatchObject({ id: requestId, endpoint: "/emails", method: "POST" });

    await sink.waitForMessages(1, 30_000);
    // email.sent and email.delivered, each attempted and recorded.
    await receiver.waitFor("/hook", 2, 30_000);
    const attempted = async () =>
      (await store.readAll({ filter: { streamCategory: ["webhookdelivery"] } })).filter((e) => e.type === "WebhookDeliveryAttempted");
    for (const deadline = Date.now() + 30_000; (await attempted()).length < 2; await sleep(50))
      if (Date.now() > deadline) throw new Error("the two webhook attempts were not recorded in 30 s");

    const all = await store.readAll({ maxCount: 100_000 });
    const missing = all.filter(
      (e) =>
        typeof e.metadata.actor !== "string" ||
        typeof e.metadata.correlationId !== "string" ||
        typeof e.metadata.occurredAt !== "string" ||
        Number.isNaN(Date.parse(e.metadata.occurredAt.replace(" ", "T").replace(/\+00$/, "Z"))),
    );
    expect(missing.map((e) => `${e.type} ${JSON.stringify(e.metadata)}`)).toEqual([]);

    const ids = new Set(all.map((e) => e.id));
    const email = all.filter((e) => e.streamId === emailStream(emailId));
    expect(email.map((e) => e.type)).toEqual(["EmailQueued", "EmailSent", "EmailDelivered"]);
    const emailEventIds = new Set(email.map((e) => e.id));
    const deliveryStreams = new Set(
      all
        .filter((e) => e.type === "WebhookDeliveryCreated" && emailEventIds.has((e.data as { eventId: string }).eventId))
        .map((e) => e.streamId),
    );
    expect(deliveryStreams.size).toBe(2);
    const deliveries = all.filter((e) => deliveryStreams.has(e.streamId));
    expect(deliveries.map((e) => e.type).sort()).toEqual([
      "WebhookDeliveryAttempted",
      "WebhookDeliveryAttempted",
      "WebhookDeliveryCreated",
      "WebhookDeliveryCreated",
    ]);
    const chain = (e: RecordedEvent) => ({
      type: e.type,
      teamId: e.metadata.teamId,
      correlationId: e.metadata.correlationId,
      causedByKnown: e.metadata.causationId === requestId || ids.has(e.metadata.causationId ?? ""),
    });
    const teamId = email[0]!.metadata.teamId;
    expect(teamId).toEqual(expect.any(String));
    for (const event of [...email, ...deliveries])
      expect(chain(event)).toEqual({ type: event.type, teamId, correlationId: requestId, causedByKnown: true });
    // Each step names its cause: the request, then the queuing (the sending and its outcome are one decision on
    // the SMTP server's answer), then the email event a delivery is for, then the delivery.
    expect(email.map((e) => e.metadata.causationId)).toEqual([requestId, email[0]!.id, email[0]!.id]);
    for (const created of deliveries.filter((e) => e.type === "WebhookDeliveryCreated")) {
      expect(emailEventIds.has(created.metadata.causationId!)).toBe(true);
      const attempt = deliveries.find((e) => e.streamId === created.streamId && e.type === "WebhookDeliveryAttempted")!;
      expect(attempt.metadata.causationId).toBe(created.id);
    }

    // The request id leads an auditor, through the projector's index, to every event it caused.
    const caused = [...email, ...deliveries].map((e) => e.id).sort();
    const found = async () => {
      const lines: string[] = [];
      const code = await runCommand(["audit", "find", requestId, "--json"], server.serving.runtime, {
        out: (line) => lines.push(line),
        err: () => {},
      });
      const events = lines.map((line) => JSON.parse(line) as { event_id: string; type: string });
      return { code, ids: [...new Set(events.map((e) => e.event_id))].filter((id) => caused.includes(id)).sort(), events };
    };
    let listed = await found();
    for (const deadline = Date.now() + 30_000; listed.ids.length < caused.length && Date.now() < deadline; await sleep(100))
      listed = await found();
    expect(listed.code).toBe(0);
    expect(listed.ids).toEqual(caused);
    expect(new Set(listed.events.map((e) => e.type))).toEqual(
      new Set(["EmailQueued", "EmailSent", "EmailDelivered", "WebhookDeliveryCreated", "WebhookDeliveryAttempted"]),
    );
  });
});
