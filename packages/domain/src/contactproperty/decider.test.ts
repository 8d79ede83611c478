import { describe, it } from "vitest";
import { given, itRefuses, now, otherTeam, teamId } from "../testing/scenario.js";
import { contactPropertyDecider, type ContactPropertyCommand } from "./decider.js";
import type { ContactPropertyEvent } from "./events.js";

const propertyId = "00000000-0000-4000-8000-000000000002";

const create = (overrides: Partial<Extract<ContactPropertyCommand, { type: "CreateContactProperty" }>> = {}): ContactPropertyCommand => ({
  type: "CreateContactProperty",
  propertyId,
  teamId,
  key: "company_name",
  propertyType: "string",
  fallbackValue: null,
  now,
  ...overrides,
});
const created = (fallbackValue: string | number | null = null, type: "string" | "number" = "string"): ContactPropertyEvent => ({
  type: "ContactPropertyCreated",
  data: { propertyId, teamId, key: "company_name", type, fallbackValue, createdAt: now },
});

describe("contact property decider", () => {
  it("creates a property with a fallback of its type", () => {
    given(contactPropertyDecider)
      .when(create({ fallbackValue: "Acme" }))
      .then([created("Acme")]);
  });
  itRefuses(contactPropertyDecider, [
    [
      "refuses a key with characters other than letters, digits and underscores",
      create({ key: "company-name" }),
      "validation_error",
      /`key`/,
    ],
    ["refuses an empty key", create({ key: "" }), "validation_error", /`key`/],
    ["refuses a key over 50 characters", create({ key: "k".repeat(51) }), "validation_error", /`key`/],
    ["refuses a built-in contact field as key", create({ key: "first_name" }), "validation_error", /built-in/],
    [
      "refuses a text fallback for a number",
      create({ propertyType: "number", fallbackValue: "ten" }),
      "validation_error",
      /`fallback_value`/,
    ],
    [
      "refuses a number fallback for a string",
      create({ propertyType: "string", fallbackValue: 10 }),
      "validation_error",
      /`fallback_value`/,
    ],
    [
      "refuses NaN as a number fallback",
      create({ propertyType: "number", fallbackValue: Number.NaN }),
      "validation_error",
      /`fallback_value`/,
    ],
  ]);
  it("accepts a key of 50 characters", () => {
    given(contactPropertyDecider)
      .when(create({ key: "k".repeat(50) }))
      .then([{ ...created(), data: { ...created().data, key: "k".repeat(50) } } as ContactPropertyEvent]);
  });
  it("answers its own retried create with nothing", () => {
    given(contactPropertyDecider, [created()]).when(create()).then([]);
  });
  it("changes the fallback, checked against the type", () => {
    given(contactPropertyDecider, [created(1, "number")])
      .when({ type: "UpdateContactProperty", teamId, fallbackValue: 2, now })
      .then([{ type: "ContactPropertyUpdated", data: { propertyId, fallbackValue: 2, updatedAt: now } }]);
    given(contactPropertyDecider, [created(1, "number")])
      .when({ type: "UpdateContactProperty", teamId, fallbackValue: "2", now })
      .thenError("validation_error", /`fallback_value`/);
  });
  it("records nothing when the fallback is unchanged", () => {
    given(contactPropertyDecider, [created("x")])
      .when({ type: "UpdateContactProperty", teamId, fallbackValue: "x", now })
      .then([]);
  });
  it("does not show one team's property to another", () => {
    given(contactPropertyDecider, [created()])
      .when({ type: "UpdateContactProperty", teamId: otherTeam, fallbackValue: null, now })
      .thenError("not_found");
    given(contactPropertyDecider, [created()]).when({ type: "DeleteContactProperty", teamId: otherTeam, now }).thenError("not_found");
  });
  it("deletes once; a deleted property is not found", () => {
    const deleted: ContactPropertyEvent = {
      type: "ContactPropertyDeleted",
      data: { propertyId, teamId, key: "company_name", deletedAt: now },
    };
    given(contactPropertyDecider, [created()]).when({ type: "DeleteContactProperty", teamId, now }).then([deleted]);
    given(contactPropertyDecider, [created(), deleted]).when({ type: "DeleteContactProperty", teamId, now }).thenError("not_found");
  });
});
