import { describe, expect, it } from "vitest";
import type { EventStore, RecordedEvent } from "@tidings/eventstore";
import { createWebhookTargets } from "./webhookTargets.js";

const webhookId = "9d8c7b6a-5f4e-4d3c-8b2a-1f0e9d8c7b6a";
const recorded = (type: string, data: unknown, revision: number): RecordedEvent => ({
  id: String(revision),
  type,
  data,
  metadata: {},
  streamId: `webhook-${webhookId}`,
  revision: BigInt(revision),
  position: { commit: 1n, prepare: BigInt(revision) },
  createdAt: new Date(),
});
const created = recorded(
  "WebhookCreated",
  {
    webhookId,
    teamId: webhookId,
    endpoint: "https://hooks.example.test/in",
    events: ["email.sent"],
    secret: "sealed",
    createdAt: "2026-11-23 10:00:00.000000+00",
  },
  0,
);
const disabled = recorded(
  "WebhookUpdated",
  {
    webhookId,
    endpoint: "https://hooks.example.test/in",
    events: ["email.sent"],
    status: "disabled",
    updatedAt: "2026-11-23 10:01:00.000000+00",
  },
  1,
);

describe("webhook targets", () => {
  it("reads a webhook at most once per maxAgeMs, and sees it disabled once that has passed", async () => {
    const stream = [created];
    let reads = 0;
    const store = { readStream: async () => (reads++, [...stream]) } as unknown as EventStore;
    // A clock of the test's own: on a loaded machine, real milliseconds pass between any two calls.
    let nowMs = 0;
    const targets = createWebhookTargets(store, 30, () => nowMs);
    expect(await targets.get(webhookId)).toEqual({
      endpoint: "https://hooks.example.test/in",
      secrets: [{ sealed: "sealed", validUntil: null }],
    });
    stream.push(disabled);
    await Promise.all(Array.from({ length: 10 }, () => targets.get(webhookId)));
    expect(reads).toBe(1);
    nowMs += 29;
    expect(await targets.get(webhookId)).not.toBeNull();
    expect(reads).toBe(1);
    nowMs += 1;
    expect(await targets.get(webhookId)).toBeNull();
    expect(reads).toBe(2);
  });
});
