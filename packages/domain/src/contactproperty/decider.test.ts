import { describe, it } from "vitest";
import { given, now, otherTeam, teamId } from "../testing/scenario.js";
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
  it("refuses a key with characters other than letters, digits and underscores", () => {
    given(contactPropertyDecider)
      .when(create({ key: "company-name" }))
      .thenError("validation_error", /`key`/);
  });
  it("refuses an empty key and a key over 50 characters", () => {
    given(contactPropertyDecider)
      .when(create({ key: "" }))
      .thenError("validation_error", /`key`/);
    given(contactPropertyDecider)
      .when(create({ key: "k".repeat(51) }))
      .thenError("validation_error", /`key`/);
    given(contactPropertyDecider)
      .when(create({ key: "k".repeat(50) }))
      .then([{ ...created(), data: { ...created().data, key: "k".repeat(50) } } as ContactPropertyEvent]);
  });
  it("refuses a built-in contact field as key", () => {
    given(contactPropertyDecider)
      .when(create({ key: "first_name" }))
      .thenError("validation_error", /built-in/);
  });
  it("refuses a fallback that does not match the type", () => {
    given(contactPropertyDecider)
      .when(create({ propertyType: "number", fallbackValue: "ten" }))
      .thenError("validation_error", /`fallback_value`/);
    given(contactPropertyDecider)
      .when(create({ propertyType: "string", fallbackValue: 10 }))
      .thenError("validation_error", /`fallback_value`/);
    given(contactPropertyDecider)
      .when(create({ propertyType: "number", fallbackValue: Number.NaN }))
      .thenError("validation_error", /`fallback_value`/);
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
