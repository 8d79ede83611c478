import { describe, it } from "vitest";
import { given, teamId } from "../testing/scenario.js";
import { WEBHOOK_RETRY_SCHEDULE_MS, webhookDeliveryDecider, type WebhookDeliveryCommand } from "./decider.js";
import type { WebhookDeliveryEvent } from "./events.js";

const webhookId = "9d8c7b6a-5f4e-4d3c-8b2a-1f0e9d8c7b6a";
const deliveryId = "11111111-1111-4111-8111-111111111111";
const eventId = "22222222-2222-4222-8222-222222222222";
const now = new Date("2026-11-23T10:00:00.000Z");
const payload = { type: "email.sent", created_at: "2026-11-23T09:59:59.000Z", data: { email_id: "e" } };

const createdEvent: WebhookDeliveryEvent = {
  type: "WebhookDeliveryCreated",
  data: { deliveryId, webhookId, teamId, eventId, eventType: "email.sent", payload, createdAt: "2026-11-23 10:00:00.000000+00" },
};
const attempt = (n: number, succeeded: boolean, statusCode: number | null = succeeded ? 200 : 500): WebhookDeliveryCommand => ({
  type: "RecordWebhookAttempt",
  attempt: n,
  succeeded,
  statusCode,
  response: succeeded ? "ok" : "boom",
  durationMs: 12,
  scheduleMs: WEBHOOK_RETRY_SCHEDULE_MS,
  now,
});
const attempted = (n: number, succeeded: boolean, nextAttemptAt: string | null): WebhookDeliveryEvent => ({
  type: "WebhookDeliveryAttempted",
  data: {
    deliveryId,
    attempt: n,
    succeeded,
    statusCode: succeeded ? 200 : 500,
    response: succeeded ? "ok" : "boom",
    durationMs: 12,
    attemptedAt: now.toISOString(),
    nextAttemptAt,
  },
});
const after = (ms: number) => new Date(now.getTime() + ms).toISOString();
const failures = (count: number) => Array.from({ length: count }, (_, i) => attempted(i + 1, false, after(1)));

describe("webhook delivery decider", () => {
  it("creates a delivery once", () => {
    const create: WebhookDeliveryCommand = {
      type: "CreateWebhookDelivery",
      deliveryId,
      webhookId,
      teamId,
      eventId,
      payload,
      now: "2026-11-23 10:00:00.000000+00",
    };
    given(webhookDeliveryDecider).when(create).then([createdEvent]);
    given(webhookDeliveryDecider, [createdEvent]).when(create).then([]);
  });

  it("records a success with no next attempt", () =>
    given(webhookDeliveryDecider, [createdEvent])
      .when(attempt(1, true))
      .then([attempted(1, true, null)]));

  it("schedules the second attempt 5 s after a first failure", () =>
    given(webhookDeliveryDecider, [createdEvent])
      .when(attempt(1, false))
      .then([attempted(1, false, after(5_000))]));

  it("follows the reference schedule: 5 min after the second failure, 10 h after the seventh", () => {
    given(webhookDeliveryDecider, [createdEvent, ...failures(1)])
      .when(attempt(2, false))
      .then([attempted(2, false, after(300_000))]);
    given(webhookDeliveryDecider, [createdEvent, ...failures(6)])
      .when(attempt(7, false))
      .then([attempted(7, false, after(36_000_000))]);
  });

  it("fails the delivery after the eighth failed attempt", () =>
    given(webhookDeliveryDecider, [createdEvent, ...failures(7)])
      .when(attempt(8, false))
      .then([attempted(8, false, null)]));

  it("does not record an attempt twice, nor after success", () => {
    given(webhookDeliveryDecider, [createdEvent, ...failures(1)])
      .when(attempt(1, false))
      .then([]);
    given(webhookDeliveryDecider, [createdEvent, attempted(1, true, null)])
      .when(attempt(2, true))
      .then([]);
  });

  it("replays a failed delivery, starting the schedule over", () => {
    const replayed: WebhookDeliveryEvent = { type: "WebhookDeliveryReplayed", data: { deliveryId, webhookId, replayedAt: "t" } };
    given(webhookDeliveryDecider, [createdEvent, ...failures(7), attempted(8, false, null)])
      .when({ type: "ReplayWebhookDelivery", teamId, webhookId, now: "t" })
      .then([replayed]);
    given(webhookDeliveryDecider, [createdEvent, ...failures(7), attempted(8, false, null), replayed])
      .when(attempt(9, false))
      .then([attempted(9, false, after(5_000))]);
  });

  it("does not replay another team's or another webhook's delivery", () => {
    given(webhookDeliveryDecider, [createdEvent])
      .when({ type: "ReplayWebhookDelivery", teamId: webhookId, webhookId, now: "t" })
      .thenError("not_found");
    given(webhookDeliveryDecider, [createdEvent])
      .when({ type: "ReplayWebhookDelivery", teamId, webhookId: teamId, now: "t" })
      .thenError("not_found");
    given(webhookDeliveryDecider).when({ type: "ReplayWebhookDelivery", teamId, webhookId, now: "t" }).thenError("not_found");
  });

  it("abandons a pending delivery, and records no attempt after", () => {
    const abandoned: WebhookDeliveryEvent = {
      type: "WebhookDeliveryAbandoned",
      data: { deliveryId, reason: "webhook disabled", abandonedAt: "t" },
    };
    given(webhookDeliveryDecider, [createdEvent])
      .when({ type: "AbandonWebhookDelivery", reason: "webhook disabled", now: "t" })
      .then([abandoned]);
    given(webhookDeliveryDecider, [createdEvent, abandoned]).when(attempt(1, true)).then([]);
  });
});
