import { setTimeout as sleep } from "node:timers/promises";
import { describe, expect, it } from "vitest";
import { testMode } from "@tidings/postgres";
import { webhookSuite } from "../support/webhookSuite.js";

/** Webhook endpoints on a server that does not allow private ones: http in server mode, and loopback at delivery time. */
describe("webhooks with WEBHOOK_ALLOW_PRIVATE unset", () => {
  const t = webhookSuite({ WEBHOOK_RETRY_SCHEDULE_MS: "0,100" });

  it("accepts http endpoints only in embedded mode (development) without the setting", async () => {
    // Subscribed to a type nothing emits yet, so nothing is sent to this name.
    const { error } = await t.resend.webhooks.create({ endpoint: "http://hooks.example.com/in", events: ["domain.created"] });
    if (testMode() === "server")
      expect(error).toMatchObject({ statusCode: 422, message: expect.stringContaining("`endpoint` field must be an https URL") });
    else expect(error).toBeNull();
  });

  it("refuses a loopback endpoint at delivery time and records why", async () => {
    const { receiver, resend, createWebhook, send } = t;
    // https: server mode accepts nothing else without the setting; the refusal comes before any connection.
    const webhook = await createWebhook(`https://127.0.0.1:${new URL(receiver.url).port}/private`, ["email.delivered"]);
    await send();
    let events: { id: string; status: string }[] = [];
    for (const deadline = Date.now() + 10_000; Date.now() < deadline; await sleep(100)) {
      events = (await resend.webhooks.events.list({ webhookId: webhook.id })).data?.data ?? [];
      if (events[0]?.status === "failed") break;
    }
    expect(events).toMatchObject([{ status: "failed", type: "email.delivered" }]);
    const attempts = (await resend.webhooks.events.attempts.list({ webhookId: webhook.id, eventId: events[0]!.id })).data?.data;
    expect(attempts).toHaveLength(2);
    expect(attempts![0]).toMatchObject({ http_status_code: null, response: expect.stringContaining("private, loopback or link-local") });
    expect(receiver.received).toHaveLength(0);
  });
});
