import { describe, expect, it } from "vitest";
import { given, now, teamId } from "../testing/scenario.js";
import { eventDefinitionDecider, type EventDefinitionCommand } from "./decider.js";
import type { EventDefinitionEvent } from "./events.js";
import { checkEventPayload } from "./rules.js";

const eventDefId = "9d8c7b6a-5f4e-4d3c-8b2a-1f0e9d8c7b6a";

const create = (
  name: string,
  schema: Record<string, "string" | "number" | "boolean" | "date"> | null = { plan: "string" },
): EventDefinitionCommand => ({
  type: "CreateEventDefinition",
  eventDefId,
  teamId,
  name,
  schema,
  now,
});
const created: EventDefinitionEvent = {
  type: "EventDefinitionCreated",
  data: { eventDefId, teamId, name: "user.signed_up", schema: { plan: "string" }, createdAt: now },
};

describe("event definition decider", () => {
  it("creates a dotted name with a schema", () => given(eventDefinitionDecider).when(create("user.signed_up")).then([created]));
  it("refuses the reserved resend: prefix", () =>
    given(eventDefinitionDecider)
      .when(create("resend:email.sent"))
      .thenError("validation_error", /reserved prefix `resend:`/));
  it("refuses the reserved tidings: prefix", () =>
    given(eventDefinitionDecider)
      .when(create("tidings:x"))
      .thenError("validation_error", /`tidings:`/));
  it("refuses a name with spaces or empty words", () => {
    given(eventDefinitionDecider)
      .when(create("user signed up"))
      .thenError("validation_error", /dotted words/);
    given(eventDefinitionDecider)
      .when(create("user..signed"))
      .thenError("validation_error", /dotted words/);
  });
  it("refuses an unknown field type", () =>
    given(eventDefinitionDecider)
      .when(create("a.b", { plan: "text" as "string" }))
      .thenError("validation_error", /`schema.plan` type/));
  it("updates the schema, and an identical schema changes nothing", () => {
    given(eventDefinitionDecider, [created])
      .when({ type: "UpdateEventDefinition", teamId, schema: null, now })
      .then([{ type: "EventDefinitionUpdated", data: { eventDefId, schema: null, updatedAt: now } }]);
    given(eventDefinitionDecider, [created])
      .when({ type: "UpdateEventDefinition", teamId, schema: { plan: "string" }, now })
      .then([]);
  });
  it("another team's definition is not found", () =>
    given(eventDefinitionDecider, [created])
      .when({ type: "DeleteEventDefinition", teamId: eventDefId, now })
      .thenError("not_found", "Event not found"));
  it("deletes, and a deleted definition cannot be updated", () => {
    const deleted: EventDefinitionEvent = {
      type: "EventDefinitionDeleted",
      data: { eventDefId, teamId, name: "user.signed_up", deletedAt: now },
    };
    given(eventDefinitionDecider, [created]).when({ type: "DeleteEventDefinition", teamId, now }).then([deleted]);
    given(eventDefinitionDecider, [created, deleted])
      .when({ type: "UpdateEventDefinition", teamId, schema: null, now })
      .thenError("not_found");
  });
});

describe("event payload against its schema", () => {
  const schema = { plan: "string", seats: "number", trial: "boolean", ends: "date" } as const;
  const good = { plan: "pro", seats: 3, trial: false, ends: "2026-12-01T00:00:00Z", extra: { any: 1 } };
  it("accepts matching types and passes undeclared fields", () => expect(checkEventPayload(schema, good)).toBeUndefined());
  it("names a missing field", () => expect(checkEventPayload(schema, { ...good, seats: undefined })?.message).toMatch(/`payload.seats`/));
  it("names a field of the wrong type", () => {
    expect(checkEventPayload(schema, { ...good, seats: "3" })?.message).toBe("The `payload.seats` field must be a number.");
    expect(checkEventPayload(schema, { ...good, trial: "no" })?.message).toBe("The `payload.trial` field must be a boolean.");
    expect(checkEventPayload(schema, { ...good, ends: "next week" })?.message).toBe("The `payload.ends` field must be an ISO-8601 date.");
  });
  it("takes anything when there is no schema", () => expect(checkEventPayload(null, { whatever: [1] })).toBeUndefined());
});
