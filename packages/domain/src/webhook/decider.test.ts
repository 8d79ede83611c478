import { describe, it } from "vitest";
import { given, now, otherTeam, teamId } from "../testing/scenario.js";
import { webhookDecider, type WebhookCommand } from "./decider.js";
import type { WebhookEvent } from "./events.js";

const webhookId = "9d8c7b6a-5f4e-4d3c-8b2a-1f0e9d8c7b6a";
const later = "2026-11-23 11:00:00.000000+00";
const graceUntil = "2026-11-24 11:00:00.000000+00";

const create = (overrides: Partial<Extract<WebhookCommand, { type: "CreateWebhook" }>> = {}): WebhookCommand => ({
  type: "CreateWebhook",
  webhookId,
  teamId,
  endpoint: "https://hooks.example.com/in",
  events: ["email.sent", "email.delivered"],
  sealedSecret: "sealed-1",
  allowHttp: false,
  now,
  ...overrides,
});
const created: WebhookEvent = {
  type: "WebhookCreated",
  data: {
    webhookId,
    teamId,
    endpoint: "https://hooks.example.com/in",
    events: ["email.sent", "email.delivered"],
    secret: "sealed-1",
    createdAt: now,
  },
};
const update = (changes: { endpoint?: string; events?: string[]; status?: "enabled" | "disabled" }, teamOf = teamId): WebhookCommand => ({
  type: "UpdateWebhook",
  teamId: teamOf,
  allowHttp: false,
  now: later,
  ...changes,
});

describe("webhook decider: create", () => {
  it("creates an enabled webhook", () => given(webhookDecider).when(create()).then([created]));

  it("subscribes a type given twice once", () =>
    given(webhookDecider)
      .when(create({ events: ["email.sent", "email.delivered", "email.sent"] }))
      .then([created]));

  it("accepts contact and domain types", () =>
    given(webhookDecider)
      .when(create({ events: ["contact.created", "domain.updated"] }))
      .then([{ type: "WebhookCreated", data: { ...created.data, events: ["contact.created", "domain.updated"] } } as WebhookEvent]));

  it("rejects an empty events list", () =>
    given(webhookDecider)
      .when(create({ events: [] }))
      .thenError("validation_error", /`events`.*at least 1/));

  it("rejects an unknown type, naming it and its index", () =>
    given(webhookDecider)
      .when(create({ events: ["email.sent", "email.nope"] }))
      .thenError("validation_error", /`events\[1\]`: `email\.nope` is not a known event type/));

  it("rejects an endpoint that is not a URL", () =>
    given(webhookDecider)
      .when(create({ endpoint: "hooks.example.com" }))
      .thenError("validation_error", /`endpoint`.*absolute URL/));

  it("rejects an http endpoint unless http is allowed", () =>
    given(webhookDecider)
      .when(create({ endpoint: "http://hooks.example.com/in" }))
      .thenError("validation_error", /`endpoint` field must be an https URL/));

  it("accepts an http endpoint where http is allowed (development)", () =>
    given(webhookDecider)
      .when(create({ endpoint: "http://127.0.0.1:9000/in", allowHttp: true }))
      .then([{ type: "WebhookCreated", data: { ...created.data, endpoint: "http://127.0.0.1:9000/in" } } as WebhookEvent]));

  it("rejects another scheme even where http is allowed", () =>
    given(webhookDecider)
      .when(create({ endpoint: "ftp://hooks.example.com/", allowHttp: true }))
      .thenError("validation_error", /http or https/));

  it("rejects an endpoint longer than 2048 characters", () =>
    given(webhookDecider)
      .when(create({ endpoint: `https://hooks.example.com/${"a".repeat(2048)}` }))
      .thenError("validation_error", /at most 2048/));

  it("treats its own retried create as done", () => given(webhookDecider, [created]).when(create()).then([]));
});

describe("webhook decider: update", () => {
  it("disables", () =>
    given(webhookDecider, [created])
      .when(update({ status: "disabled" }))
      .then([
        {
          type: "WebhookUpdated",
          data: { webhookId, endpoint: created.data.endpoint, events: created.data.events, status: "disabled", updatedAt: later },
        },
      ]));

  it("changes endpoint and events, keeping what is not named", () =>
    given(webhookDecider, [created])
      .when(update({ endpoint: "https://other.example.com/", events: ["email.bounced"] }))
      .then([
        {
          type: "WebhookUpdated",
          data: { webhookId, endpoint: "https://other.example.com/", events: ["email.bounced"], status: "enabled", updatedAt: later },
        },
      ]));

  it("records nothing when nothing changes", () =>
    given(webhookDecider, [created])
      .when(update({ status: "enabled" }))
      .then([]));

  it("applies the create rules to a new endpoint and events", () => {
    given(webhookDecider, [created])
      .when(update({ endpoint: "http://x.example.com/" }))
      .thenError("validation_error", /https/);
    given(webhookDecider, [created])
      .when(update({ events: [] }))
      .thenError("validation_error", /`events`/);
    given(webhookDecider, [created])
      .when(update({ events: ["email.sent", "nope"] }))
      .thenError("validation_error", /`events\[1\]`: `nope`/);
  });

  it("is not found for another team, or once deleted", () => {
    given(webhookDecider, [created])
      .when(update({ status: "disabled" }, otherTeam))
      .thenError("not_found");
    given(webhookDecider, [created, { type: "WebhookDeleted", data: { webhookId, deletedAt: later } }])
      .when(update({ status: "disabled" }))
      .thenError("not_found");
  });
});

describe("webhook decider: rotate and delete", () => {
  it("rotates, keeping the old secret for the grace period", () =>
    given(webhookDecider, [created])
      .when({ type: "RotateWebhookSecret", teamId, sealedSecret: "sealed-2", graceUntil, now: later })
      .then([
        {
          type: "WebhookSigningSecretRotated",
          data: { webhookId, secret: "sealed-2", previousSecret: "sealed-1", previousValidUntil: graceUntil, rotatedAt: later },
        },
      ]));

  it("deletes", () =>
    given(webhookDecider, [created])
      .when({ type: "DeleteWebhook", teamId, now: later })
      .then([{ type: "WebhookDeleted", data: { webhookId, deletedAt: later } }]));

  it("does not rotate or delete another team's webhook", () => {
    given(webhookDecider, [created])
      .when({ type: "RotateWebhookSecret", teamId: otherTeam, sealedSecret: "s", graceUntil, now })
      .thenError("not_found");
    given(webhookDecider, [created]).when({ type: "DeleteWebhook", teamId: otherTeam, now }).thenError("not_found");
  });
});
