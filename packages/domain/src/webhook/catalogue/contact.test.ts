import { describe, expect, it } from "vitest";
import type { ContactEvent } from "../../contact/events.js";
import { CONTACT_IMPORT_ACTOR } from "../../contactimport/events.js";
import { contactErasureWebhookEvents, payloadBuilderFor, typesProducedBy } from "./index.js";

const contactId = "9d8c7b6a-5f4e-4d3c-8b2a-1f0e9d8c7b6a";
const teamId = "5c1f3c4e-6a0b-4d2c-9e8f-1a2b3c4d5e6f";
const segmentId = "11111111-1111-4111-8111-111111111111";
const person = { email: "ann@example.test", firstName: "Ann", lastName: null, unsubscribed: false, properties: {} };
const created: ContactEvent = {
  type: "ContactCreated",
  data: { contactId, teamId, ...person, segmentIds: [segmentId], topics: [], createdAt: "2026-11-23 10:00:00.000000+00" },
};
const updated: ContactEvent = {
  type: "ContactUpdated",
  data: { contactId, teamId, ...person, lastName: "Lee", updatedAt: "2026-11-23 11:00:00.000000+00" },
};
const context = { messageIdOf: (id: string) => id };
const build = (event: ContactEvent, history: ContactEvent[], actor = "api:key") =>
  payloadBuilderFor("contact", event.type)?.({ ...event, metadata: { actor } }, history, context) ?? null;

describe("contact webhook payloads", () => {
  it("builds contact.created and contact.updated with the contact as of the event", () => {
    expect(build(created, [created])).toEqual({
      type: "contact.created",
      created_at: "2026-11-23T10:00:00.000Z",
      data: {
        id: contactId,
        audience_id: segmentId,
        segment_ids: [segmentId],
        created_at: "2026-11-23T10:00:00.000Z",
        updated_at: "2026-11-23T10:00:00.000Z",
        email: "ann@example.test",
        first_name: "Ann",
        unsubscribed: false,
      },
    });
    expect(build(updated, [created, updated])).toMatchObject({
      type: "contact.updated",
      data: { last_name: "Lee", updated_at: "2026-11-23T11:00:00.000Z", created_at: "2026-11-23T10:00:00.000Z" },
    });
  });

  it("fires nothing for what a CSV import writes (docs/wire-compatibility.md §6.10)", () => {
    expect(build(created, [created], CONTACT_IMPORT_ACTOR)).toBeNull();
    expect(build(updated, [created, updated], CONTACT_IMPORT_ACTOR)).toBeNull();
  });

  it("builds contact.deleted from the erasure, with ids only", () =>
    expect(
      payloadBuilderFor("contacterasure", "ContactErased")?.(
        { type: "ContactErased", data: { contactId, teamId, segmentIds: [], topicIds: [], erasedAt: "2026-11-23 12:00:00.000000+00" } },
        [],
        context,
      ),
    ).toEqual({
      type: "contact.deleted",
      created_at: "2026-11-23T12:00:00.000Z",
      data: { id: contactId, audience_id: null, segment_ids: [], updated_at: "2026-11-23T12:00:00.000Z", deleted: true },
    }));

  // The fan-out skips an event no webhook could take, by the types its category produces.
  it("names contact.deleted among the types the erasure stream produces, though another category lists it", () =>
    expect(typesProducedBy(contactErasureWebhookEvents)).toEqual(["contact.deleted"]));
});
