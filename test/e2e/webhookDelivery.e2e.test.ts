import { setTimeout as sleep } from "node:timers/promises";
import { describe, expect, it } from "vitest";
import { verifiedPayload } from "../support/signedWebhooks.js";
import type { ReceivedWebhook } from "../support/webhookReceiver.js";
import { webhookSuite } from "../support/webhookSuite.js";
import { uuid, wireTimestamp } from "../support/wire.js";

/** Email webhooks delivered into a real HTTP receiver on loopback: signed, retried, replayed, and stopped. */
describe("webhook deliveries into a real HTTP receiver on loopback", () => {
  // Retries 200 ms apart instead of 5 s, 5 min, …: the schedule is a setting.
  const t = webhookSuite({ WEBHOOK_ALLOW_PRIVATE: "true", WEBHOOK_RETRY_SCHEDULE_MS: "0,200,200,200" });

  it("delivers the subscribed types, each signed and verified by the SDK, and not the others", async () => {
    const { receiver, resend, createWebhook, send } = t;
    const delivered = await createWebhook(`${receiver.url}/delivered`, ["email.delivered"]);
    const sent = await createWebhook(`${receiver.url}/sent`, ["email.sent", "email.bounced"]);
    const emailId = await send([{ name: "category", value: "welcome" }]);
    const [onDelivered] = await receiver.waitFor("/delivered", 1);
    const [onSent] = await receiver.waitFor("/sent", 1);
    const event = verifiedPayload(resend, onDelivered!, delivered.signing_secret);
    expect(verifiedPayload(resend, onDelivered!, delivered.signing_secret, "webhook")).toEqual(event);
    expect(event).toEqual({
      type: "email.delivered",
      created_at: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/),
      data: {
        email_id: emailId,
        created_at: expect.any(String),
        from: "Acme <hello@acme.test>",
        to: ["ann@example.test"],
        subject: "Hello",
        message_id: expect.stringContaining(emailId),
        tags: { category: "welcome" },
      },
    });
    expect(verifiedPayload(resend, onSent!, sent.signing_secret)).toMatchObject({ type: "email.sent", data: { email_id: emailId } });
    expect(() => verifiedPayload(resend, onSent!, delivered.signing_secret)).toThrow();
    await sleep(500);
    expect(receiver.at("/delivered")).toHaveLength(1);
    expect(receiver.at("/sent")).toHaveLength(1);
    // The list is a read model: the attempt's outcome shows once the projector has caught up with it.
    const listed = async () => (await resend.webhooks.events.list({ webhookId: delivered.id })).data?.data;
    await expect.poll(listed, { timeout: 10_000 }).toEqual([
      {
        id: onDelivered!.headers["svix-id"]!.replace(/^msg_/, ""),
        type: "email.delivered",
        created_at: expect.stringMatching(wireTimestamp),
        status: "success",
      },
    ]);
  });

  it("retries a receiver answering 500 twice under the same id, lists the three attempts, and replays", async () => {
    const { receiver, resend, createWebhook, send } = t;
    receiver.answer("/flaky", [500, 500, 200]);
    const webhook = await createWebhook(`${receiver.url}/flaky`, ["email.delivered"]);
    const emailId = await send();
    const requests = await receiver.waitFor("/flaky", 3);
    const ids = new Set(requests.map((r) => r.headers["svix-id"]));
    expect(ids.size).toBe(1);
    for (const request of requests) expect(verifiedPayload(resend, request, webhook.signing_secret).data.email_id).toBe(emailId);
    const eventId = requests[0]!.headers["svix-id"]!.replace(/^msg_/, "");
    const attempts = async (count: number) => {
      for (const deadline = Date.now() + 60_000; ; await sleep(50)) {
        const page = (await resend.webhooks.events.attempts.list({ webhookId: webhook.id, eventId })).data!;
        if (page.data.length >= count || Date.now() > deadline) return page.data;
      }
    };
    const listed = await attempts(3);
    expect(listed.map((a) => a.http_status_code)).toEqual([200, 500, 500]);
    expect(listed[1]).toMatchObject({
      id: expect.stringMatching(uuid),
      response: "failed with 500",
      sent_at: expect.stringMatching(wireTimestamp),
    });
    const got = await resend.webhooks.events.get({ webhookId: webhook.id, eventId });
    expect(got.data).toMatchObject({
      object: "webhook_event",
      id: eventId,
      type: "email.delivered",
      status: "success",
      next_attempt_at: null,
      payload: { type: "email.delivered" },
    });

    expect((await resend.webhooks.events.replay({ webhookId: webhook.id, eventId })).data).toEqual({
      object: "webhook_event",
      id: eventId,
    });
    const [, , , replayed] = await receiver.waitFor("/flaky", 4);
    expect(replayed!.headers["svix-id"]).toBe(requests[0]!.headers["svix-id"]);
    expect(replayed!.body).toBe(requests[0]!.body);
    expect(await attempts(4)).toHaveLength(4);
  });

  it("signs with both secrets during a rotation's grace", async () => {
    const { receiver, resend, createWebhook, send } = t;
    const webhook = await createWebhook(`${receiver.url}/rotated`, ["email.delivered"]);
    const rotated = await resend.webhooks.rotateSigningSecret(webhook.id);
    expect(rotated.data).toEqual({ object: "webhook", id: webhook.id, signing_secret: expect.stringMatching(/^whsec_/) });
    expect(rotated.data!.signing_secret).not.toBe(webhook.signing_secret);
    expect((await resend.webhooks.get(webhook.id)).data?.signing_secret).toBe(rotated.data!.signing_secret);
    await send();
    const [received] = await receiver.waitFor("/rotated", 1);
    expect(received!.headers["svix-signature"]!.split(" ")).toHaveLength(2);
    expect(verifiedPayload(resend, received!, webhook.signing_secret).type).toBe("email.delivered");
    expect(verifiedPayload(resend, received!, rotated.data!.signing_secret).type).toBe("email.delivered");
  });

  it("sends nothing to a disabled or a deleted webhook", async () => {
    const { receiver, resend, createWebhook, send } = t;
    const disabled = await createWebhook(`${receiver.url}/disabled`, ["email.delivered"]);
    const deleted = await createWebhook(`${receiver.url}/deleted`, ["email.delivered"]);
    await createWebhook(`${receiver.url}/witness`, ["email.delivered"]);
    await resend.webhooks.update(disabled.id, { status: "disabled" });
    await resend.webhooks.remove(deleted.id);
    await send();
    await receiver.waitFor("/witness", 1);
    await sleep(500);
    expect(receiver.at("/disabled")).toHaveLength(0);
    expect(receiver.at("/deleted")).toHaveLength(0);
    expect((await resend.webhooks.events.list({ webhookId: disabled.id })).data?.data).toEqual([]);
  });

  it("stops retrying at once when the webhook is disabled", async () => {
    const { receiver, resend, createWebhook, send } = t;
    receiver.answer("/failing", [500]);
    const webhook = await createWebhook(`${receiver.url}/failing`, ["email.delivered"]);
    await send();
    await receiver.waitFor("/failing", 2);
    await resend.webhooks.update(webhook.id, { status: "disabled" });
    const attemptsWhenDisabled = receiver.at("/failing").length;
    await sleep(800);
    // One attempt may have been in flight as the PATCH landed; none starts after it.
    expect(receiver.at("/failing").length).toBeLessThanOrEqual(attemptsWhenDisabled + 1);
    const status = async () => (await resend.webhooks.events.list({ webhookId: webhook.id })).data!.data[0]?.status;
    await expect.poll(status, { timeout: 10_000 }).toBe("failed");
  });

  // The slow answer is long enough that a loaded machine's scheduling delays (seconds at load 10) cannot pass for waiting on it.
  it("keeps a slow endpoint from delaying another", { timeout: 180_000 }, async () => {
    const { receiver, createWebhook, send } = t;
    const slowAnswerMs = 15_000;
    receiver.answer("/slow", [200], slowAnswerMs);
    await createWebhook(`${receiver.url}/slow`, ["email.sent", "email.delivered"]);
    await createWebhook(`${receiver.url}/fast`, ["email.sent", "email.delivered"]);
    for (let i = 0; i < 3; i++) await send();
    const fast = await receiver.waitFor("/fast", 6);
    const slow = await receiver.waitFor("/slow", 6, 150_000);
    const eventOf = (r: ReceivedWebhook) => {
      const { type, data } = JSON.parse(r.body) as { type: string; data: { email_id: string } };
      return `${type} ${data.email_id}`;
    };
    const slowArrival = new Map(slow.map((r) => [eventOf(r), r.receivedAt]));
    // Each event reaches the fast endpoint before the slow one has answered it: nothing waits on a slow answer.
    for (const r of fast) expect(r.receivedAt).toBeLessThan(slowArrival.get(eventOf(r))! + slowAnswerMs);
  });
});
