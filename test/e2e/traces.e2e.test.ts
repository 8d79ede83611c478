import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { verifyStore } from "@tidings/eventstore";
import { startMailingServer, type MailingServer } from "../support/mailingServer.js";
import { startOtlpReceiver, type OtlpReceiver, type ReceivedSpan } from "../support/otlpReceiver.js";
import { startWebhookReceiver, type WebhookReceiver } from "../support/webhookReceiver.js";

/**
 * Traces of a whole server (every role) with OTEL_EXPORTER_OTLP_ENDPOINT on a real OTLP/HTTP receiver: an
 * email the resend SDK sends is one trace from its `POST /emails` through the append, the bus's publish and
 * handling, to the SMTP send, which ends after the relay's 250 (docs/operations.md, "Traces").
 */
describe("traces of an email from its request to the relay's 250", () => {
  let receiver: OtlpReceiver;
  let mailing: MailingServer;
  let hooks: WebhookReceiver;
  const batchDelay = process.env.OTEL_BSP_SCHEDULE_DELAY;

  beforeAll(async () => {
    // Read by the SDK's batch processor from the environment, as the specification says: spans go out within 100 ms.
    process.env.OTEL_BSP_SCHEDULE_DELAY = "100";
    receiver = await startOtlpReceiver();
    hooks = await startWebhookReceiver();
    mailing = await startMailingServer({
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
      DELIVERY_RETRY_BACKOFF_MS: "500",
      WEBHOOK_ALLOW_PRIVATE: "true",
    });
  });
  afterAll(async () => {
    await mailing?.stop();
    await receiver?.close();
    await hooks?.close();
    if (batchDelay === undefined) delete process.env.OTEL_BSP_SCHEDULE_DELAY;
    else process.env.OTEL_BSP_SCHEDULE_DELAY = batchDelay;
  });

  /** `span` and its ancestors, nearest first, as far as they have been received. */
  const ancestry = (span: ReceivedSpan): ReceivedSpan[] => {
    const chain = [span];
    for (let at = span; at.parentSpanId !== "";) {
      const parent = receiver.spans.find((s) => s.traceId === at.traceId && s.spanId === at.parentSpanId);
      if (!parent) break;
      chain.push(parent);
      at = parent;
    }
    return chain;
  };

  /** The sends of `emailId` received, once `count` of them and their ancestors up to a root are; [] at the deadline. */
  const sendsOf = async (emailId: string, count: number) => {
    const deadline = Date.now() + 60_000;
    while (Date.now() < deadline) {
      const sends = receiver.spans.filter((s) => s.name === "send smtp" && s.attributes["tidings.email.id"] === emailId);
      const chains = sends.map(ancestry);
      if (chains.length === count && chains.every((chain) => chain.at(-1)!.parentSpanId === "")) return chains;
      await sleep(100);
    }
    return [];
  };

  it("covers the request, the append, the bus hop and the SMTP send in one trace", async () => {
    const { resend, sink } = mailing;
    // The 250 comes a moment after the message, so a send span ended on anything earlier would end before it.
    sink.delayReplies(300);
    const sent = await resend.emails.send({ from: "Acme <hello@acme.test>", to: "ann@example.test", subject: "Traced", html: "<p>Hi</p>" });
    expect(sent.error).toBeNull();
    const emailId = sent.data!.id;
    const [message] = await sink.waitForMessages(1, 60_000);

    const [chain = []] = await sendsOf(emailId, 1);
    expect(receiver.refused).toEqual([]);
    expect(chain.map((s) => s.name)).toEqual([
      "send smtp",
      "process events.email.EmailQueued",
      "publish events.email.EmailQueued",
      "append email",
      "POST /emails",
    ]);
    const [send, processed, published, append, request] = chain as [ReceivedSpan, ReceivedSpan, ReceivedSpan, ReceivedSpan, ReceivedSpan];
    expect(new Set(chain.map((s) => s.traceId)).size).toBe(1);
    expect(new Set(chain.map((s) => s.service))).toEqual(new Set(["tidings"]));

    expect(request.kind).toBe(2);
    expect(request.attributes).toMatchObject({ "http.request.method": "POST", "http.route": "/emails", "http.response.status_code": 200 });
    expect(append.attributes).toMatchObject({ "tidings.stream.category": "email", "tidings.stream.id": `email-${emailId}` });
    expect(String(append.attributes["tidings.events.types"]).split(",")).toContain("EmailQueued");
    expect(published.kind).toBe(4);
    expect(published.attributes).toMatchObject({ "messaging.destination.name": "events.email.EmailQueued" });
    expect(processed.kind).toBe(5);
    expect(processed.attributes).toMatchObject({
      "messaging.destination.name": "events.email.EmailQueued",
      "messaging.consumer.group.name": "delivery",
    });
    expect(send.kind).toBe(3);
    expect(send.attributes).toMatchObject({
      "tidings.mail.transport": "smtp",
      "tidings.mail.outcome": "delivered",
      "tidings.smtp.reply_code": 250,
    });
    // The sink takes the message down as it answers 250; the span ends once the transport has that answer. The
    // SDK's clock is the process's start plus a monotonic count, which strays from Date.now() by a little (a
    // CI run saw the span end 0.13 ms "before" the sink's millisecond), hence the 20 ms of room; the span's
    // length, on one clock, must hold the reply's 300 ms wait.
    expect(send.endNs).toBeGreaterThanOrEqual((BigInt(message!.receivedAt.getTime()) - 20n) * 1_000_000n);
    expect(send.endNs - send.startNs).toBeGreaterThanOrEqual(300_000_000n);
    // No span is named for an id or an address: those are attributes.
    for (const span of receiver.spans) expect(span.name).not.toMatch(/[0-9a-f]{8}-[0-9a-f]{4}|@/);
  });

  it("continues the email's trace in a retry a timer takes up after a 4xx", async () => {
    const { resend, sink } = mailing;
    sink.delayReplies(0);
    sink.failNext(1, { code: 451, message: "4.3.0 try again later" });
    const sent = await resend.emails.send({
      from: "Acme <hello@acme.test>",
      to: "bob@example.test",
      subject: "Retried",
      html: "<p>Hi</p>",
    });
    expect(sent.error).toBeNull();
    const emailId = sent.data!.id;
    const [deferred = [], delivered = []] = (await sendsOf(emailId, 2)).sort((a, b) => Number(a[0]!.startNs - b[0]!.startNs));
    expect(deferred[0]?.attributes).toMatchObject({ "tidings.mail.outcome": "deferred", "tidings.smtp.reply_code": 451 });
    expect(delivered[0]?.attributes).toMatchObject({ "tidings.mail.outcome": "delivered", "tidings.smtp.reply_code": 250 });
    expect(delivered[0]!.traceId).toBe(deferred[0]!.traceId);
    // The retry hangs off the deferral's append, which hangs off the first send's handling.
    expect(delivered.map((s) => s.name).slice(0, 2)).toEqual(["send smtp", "append email"]);
    expect(delivered.at(-1)!.name).toBe("POST /emails");
    expect(delivered.some((s) => s.spanId === deferred[1]!.spanId)).toBe(true);
  });

  it("holds the webhook POSTs of the email's events in its trace", async () => {
    const { resend } = mailing;
    const webhook = await resend.webhooks.create({ endpoint: `${hooks.url}/traced`, events: ["email.delivered"] });
    expect(webhook.error).toBeNull();
    const sent = await resend.emails.send({ from: "Acme <hello@acme.test>", to: "cy@example.test", subject: "Hooked", html: "<p>Hi</p>" });
    expect(sent.error).toBeNull();
    await hooks.waitFor("/traced", 1, 60_000);
    const [sendChain = []] = await sendsOf(sent.data!.id, 1);
    const traceId = sendChain[0]?.traceId;
    const deadline = Date.now() + 60_000;
    let post: ReceivedSpan | undefined;
    while (!post && Date.now() < deadline) {
      post = receiver.spans.find((s) => s.name === "POST" && s.traceId === traceId);
      if (!post) await sleep(100);
    }
    expect(post?.kind).toBe(3);
    expect(post?.attributes).toMatchObject({ "server.address": "127.0.0.1", "http.response.status_code": 200 });
    expect(ancestry(post!).at(-1)!.name).toBe("POST /emails");
    // The endpoint is a customer's: no trace context goes to it.
    expect(hooks.at("/traced")[0]!.headers.traceparent).toBeUndefined();
  });

  it("keeps the events' hash chain whole with the traceparent in their metadata", async () => {
    const store = mailing.server.serving.runtime.storedEvents;
    const queued = await store.readStream(`email-${receiver.spans.find((s) => s.name === "send smtp")!.attributes["tidings.email.id"]}`);
    expect(queued[0]!.metadata.traceparent).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/);
    const report = await verifyStore(store, { waitMs: 60_000 });
    expect(report.ok, JSON.stringify(report)).toBe(true);
  });
});
