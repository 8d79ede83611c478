import { describe, it } from "vitest";
import { given, now, teamId } from "../testing/scenario.js";
import { deadLetterDecider, type DeadLetterCommand } from "./decider.js";
import type { DeadLetterEvent, DeadLetterFacts } from "./events.js";

const letter: DeadLetterFacts = {
  consumer: "delivery",
  letterId: "42",
  subject: "events.email.EmailQueued",
  messageId: "5d8e0c1a-4b2f-4c3d-9e8f-0a1b2c3d4e5f",
  eventId: "5d8e0c1a-4b2f-4c3d-9e8f-0a1b2c3d4e5f",
  eventType: "EmailQueued",
  streamId: "email-0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d",
  teamId,
  deliveryCount: 10,
  error: "connect ECONNREFUSED",
  orderedBy: "cli",
};
const retry: DeadLetterCommand = { type: "RetryDeadLetter", letter, now };
const drop: DeadLetterCommand = { type: "DropDeadLetter", letter, now };
const retried: DeadLetterEvent = { type: "DeadLetterRetried", data: { ...letter, retriedAt: now } };
const dropped: DeadLetterEvent = { type: "DeadLetterDropped", data: { ...letter, droppedAt: now } };

describe("dead letter", () => {
  it("records a retry", () => given(deadLetterDecider).when(retry).then([retried]));
  it("records a drop", () => given(deadLetterDecider).when(drop).then([dropped]));
  it("records a repeated retry once: ordering it again finishes one a crash cut short", () =>
    given(deadLetterDecider, [retried]).when(retry).then([]));
  it("records a repeated drop once", () => given(deadLetterDecider, [dropped]).when(drop).then([]));
  it("drops a letter whose retry was cut short before it was published", () =>
    given(deadLetterDecider, [retried]).when(drop).then([dropped]));
  it("refuses to retry a dropped letter", () =>
    given(deadLetterDecider, [dropped])
      .when(retry)
      .thenError("not_found", /dropped/));
});
