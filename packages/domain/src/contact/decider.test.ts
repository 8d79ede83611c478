import { describe, expect, it } from "vitest";
import { isDomainError } from "../decider.js";
import { given, now, otherTeam, teamId } from "../testing/scenario.js";
import { contactDecider, decideEraseContact, type ContactCommand } from "./decider.js";
import type { ContactEvent } from "./events.js";
import { renderedContactProperties } from "./rules.js";
import { fold } from "../decider.js";

const contactId = "00000000-0000-4000-8000-000000000002";
const segmentId = "00000000-0000-4000-8000-000000000003";
const topicId = "00000000-0000-4000-8000-000000000004";
const propertyTypes = { company: "string", age: "number" } as const;

type Create = Extract<ContactCommand, { type: "CreateContact" }>;
const create = (overrides: Partial<Create> = {}): ContactCommand => ({
  type: "CreateContact",
  contactId,
  teamId,
  email: "Ada@Example.com",
  fields: { firstName: "Ada", lastName: null, unsubscribed: false },
  properties: {},
  propertyTypes,
  segmentIds: [],
  topics: [],
  now,
  ...overrides,
});
/** The contact `create()` makes, as its events record it. */
const ada = {
  contactId,
  teamId,
  email: "ada@example.com",
  firstName: "Ada",
  lastName: null,
  unsubscribed: false,
  properties: {},
};
const created = (overrides: Partial<Extract<ContactEvent, { type: "ContactCreated" }>["data"]> = {}): ContactEvent => ({
  type: "ContactCreated",
  data: { ...ada, segmentIds: [], topics: [], createdAt: now, ...overrides },
});
/** The whole contact after an update, as the update records it. */
const updated = (changes: Partial<Extract<ContactEvent, { type: "ContactUpdated" }>["data"]>): ContactEvent => ({
  type: "ContactUpdated",
  data: { ...ada, updatedAt: now, ...changes },
});
const update = (changes: object, properties: Record<string, string | number | null> = {}): ContactCommand => ({
  type: "UpdateContact",
  teamId,
  changes,
  properties,
  propertyTypes,
  now,
});

describe("contact decider: create", () => {
  it("creates a contact with its email lower-cased, segments and topics", () => {
    given(contactDecider)
      .when(
        create({
          properties: { company: "Acme", age: null },
          segmentIds: [segmentId, segmentId],
          topics: [
            { topicId, subscription: "opt_out" },
            { topicId, subscription: "opt_in" },
          ],
        }),
      )
      .then([created({ properties: { company: "Acme" }, segmentIds: [segmentId], topics: [{ topicId, subscription: "opt_in" }] })]);
  });
  it("refuses a missing or malformed email", () => {
    given(contactDecider)
      .when(create({ email: "" }))
      .thenError("missing_required_field", /`email`/);
    given(contactDecider)
      .when(create({ email: "not-an-address" }))
      .thenError("validation_error", /`email`/);
    given(contactDecider)
      .when(create({ email: "Ada <ada@example.com>" }))
      .thenError("validation_error", /`email`/);
    given(contactDecider)
      .when(create({ email: `${"a".repeat(250)}@example.com` }))
      .thenError("validation_error", /`email`/);
  });
  it("refuses a name over 255 characters", () => {
    given(contactDecider)
      .when(create({ fields: { firstName: "x".repeat(256), lastName: null, unsubscribed: false } }))
      .thenError("validation_error", /`first_name`/);
    given(contactDecider)
      .when(create({ fields: { firstName: null, lastName: "x".repeat(256), unsubscribed: false } }))
      .thenError("validation_error", /`last_name`/);
  });
  it("refuses a property the team does not have", () => {
    given(contactDecider)
      .when(create({ properties: { plan: "pro" } }))
      .thenError("validation_error", /`properties.plan`/);
  });
  it("refuses a property value of the wrong type", () => {
    given(contactDecider)
      .when(create({ properties: { age: "forty" } }))
      .thenError("validation_error", /`properties.age` must be a number/);
    given(contactDecider)
      .when(create({ properties: { company: 7 } }))
      .thenError("validation_error", /`properties.company` must be a string/);
    given(contactDecider)
      .when(create({ properties: { age: true as unknown as number } }))
      .thenError("validation_error", /`properties.age`/);
  });
  it("answers its own retried create with nothing", () => {
    given(contactDecider, [created()]).when(create()).then([]);
  });
});

describe("contact decider: update", () => {
  it("records the whole contact after the change", () => {
    given(contactDecider, [created({ properties: { company: "Acme" } })])
      .when(update({ lastName: "Lovelace", unsubscribed: true }, { age: 36 }))
      .then([updated({ lastName: "Lovelace", unsubscribed: true, properties: { company: "Acme", age: 36 } })]);
  });
  it("clears names and property values given as null", () => {
    given(contactDecider, [created({ properties: { company: "Acme", age: 3 } })])
      .when(update({ firstName: null }, { company: null }))
      .then([updated({ firstName: null, properties: { age: 3 } })]);
  });
  it("refuses a null for a property the team does not have", () => {
    given(contactDecider, [created()])
      .when(update({}, { plan: null }))
      .thenError("validation_error", /`properties.plan`/);
  });
  it("records nothing when nothing changes", () => {
    given(contactDecider, [created({ properties: { age: 3 } })])
      .when(update({ firstName: "Ada" }, { age: 3 }))
      .then([]);
  });
  it("does not find another team's contact, nor one never created", () => {
    given(contactDecider, [created()])
      .when({ ...update({}), teamId: otherTeam } as ContactCommand)
      .thenError("not_found", "Contact not found");
    given(contactDecider)
      .when(update({ unsubscribed: true }))
      .thenError("not_found");
  });
});

describe("contact decider: segments and topics", () => {
  it("adds to a segment once, and removes only a member", () => {
    const added: ContactEvent = { type: "ContactAddedToSegment", data: { contactId, teamId, segmentId, addedAt: now } };
    given(contactDecider, [created()]).when({ type: "AddContactToSegment", teamId, segmentId, now }).then([added]);
    given(contactDecider, [created(), added]).when({ type: "AddContactToSegment", teamId, segmentId, now }).then([]);
    given(contactDecider, [created(), added])
      .when({ type: "RemoveContactFromSegment", teamId, segmentId, now })
      .then([{ type: "ContactRemovedFromSegment", data: { contactId, teamId, segmentId, removedAt: now } }]);
    given(contactDecider, [created()]).when({ type: "RemoveContactFromSegment", teamId, segmentId, now }).then([]);
  });
  it("records only the topic choices that change", () => {
    const other = "00000000-0000-4000-8000-000000000005";
    given(contactDecider, [created({ topics: [{ topicId, subscription: "opt_in" }] })])
      .when({
        type: "UpdateContactTopics",
        teamId,
        topics: [
          { topicId, subscription: "opt_in" },
          { topicId: other, subscription: "opt_out" },
        ],
        now,
      })
      .then([
        {
          type: "ContactTopicsUpdated",
          data: { contactId, teamId, topics: [{ topicId: other, subscription: "opt_out" }], updatedAt: now },
        },
      ]);
    given(contactDecider, [created({ topics: [{ topicId, subscription: "opt_in" }] })])
      .when({ type: "UpdateContactTopics", teamId, topics: [{ topicId, subscription: "opt_in" }], now })
      .then([]);
  });
});

describe("contact erasure", () => {
  it("records ids only: nothing of the person", () => {
    const state = fold(contactDecider, [
      created({ segmentIds: [segmentId], topics: [{ topicId, subscription: "opt_in" }], properties: { company: "Acme" } }),
    ]);
    const erased = decideEraseContact(state, teamId, now);
    expect(erased).toEqual({
      type: "ContactErased",
      data: { contactId, teamId, segmentIds: [segmentId], topicIds: [topicId], erasedAt: now },
    });
    expect(JSON.stringify(erased)).not.toMatch(/ada|Acme/i);
  });
  it("does not erase another team's contact", () => {
    expect(isDomainError(decideEraseContact(fold(contactDecider, [created()]), otherTeam, now))).toBe(true);
  });
});

describe("rendered contact properties", () => {
  it("uses the contact's value where it has one, else the fallback", () => {
    expect(renderedContactProperties({ company: "Acme" }, { company: "Unknown", age: 30, plan: null })).toEqual({
      company: "Acme",
      age: 30,
    });
  });
});
