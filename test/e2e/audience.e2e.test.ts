import { describe, expect, it } from "vitest";
import { serverForFile } from "../support/serverForFile.js";
import { paced, succeeded, uuid, wireTimestamp } from "../support/wire.js";

/**
 * The audience through the official SDK (docs/wire-compatibility.md §6.7–§6.9, §6.13, §6.18): contact properties,
 * contacts (modern and legacy audience paths), segments and audiences, topics and a contact's
 * subscriptions, suppressions.
 */

const file = serverForFile();

describe("resend.contactProperties", () => {
  it("create, get, list, update the fallback, remove", async () => {
    const created = await succeeded(() => file.resend.contactProperties.create({ key: "tier", type: "string", fallbackValue: "basic" }));
    expect(created).toEqual({ object: "contact_property", id: expect.stringMatching(uuid) });
    expect(await succeeded(() => file.resend.contactProperties.get(created.id))).toEqual({
      object: "contact_property",
      id: created.id,
      key: "tier",
      type: "string",
      fallbackValue: "basic",
      createdAt: expect.stringMatching(wireTimestamp),
    });
    expect(await succeeded(() => file.resend.contactProperties.update({ id: created.id, fallbackValue: "gold" }))).toEqual({
      object: "contact_property",
      id: created.id,
    });
    expect((await succeeded(() => file.resend.contactProperties.list())).data).toContainEqual(
      expect.objectContaining({ id: created.id, fallbackValue: "gold" }),
    );
    expect(await succeeded(() => file.resend.contactProperties.remove(created.id))).toEqual({
      object: "contact_property",
      id: created.id,
      deleted: true,
    });
    const bad = await paced(() => file.resend.contactProperties.create({ key: "bad key", type: "string" }));
    expect(bad.error).toMatchObject({ name: "validation_error", message: expect.stringContaining("`key`") });
  });
});

describe("resend.contacts", () => {
  it("create with properties, segments and topics; get by id and email; update; list; remove", async () => {
    await succeeded(() => file.resend.contactProperties.create({ key: "seats", type: "number" }));
    const segment = await succeeded(() => file.resend.segments.create({ name: "Customers" }));
    const topic = await succeeded(() => file.resend.topics.create({ name: "Updates", defaultSubscription: "opt_in" }));
    const created = await succeeded(() =>
      file.resend.contacts.create({
        email: "ada@example.com",
        firstName: "Ada",
        properties: { seats: 3 },
        segments: [{ id: segment.id }],
        topics: [{ id: topic.id, subscription: "opt_out" }],
      }),
    );
    expect(created).toEqual({ object: "contact", id: expect.stringMatching(uuid) });
    const expected = {
      object: "contact",
      id: created.id,
      email: "ada@example.com",
      first_name: "Ada",
      last_name: null,
      created_at: expect.stringMatching(wireTimestamp),
      unsubscribed: false,
      properties: { seats: { type: "number", value: 3 } },
    };
    expect(await succeeded(() => file.resend.contacts.get(created.id))).toEqual(expected);
    expect(await succeeded(() => file.resend.contacts.get({ email: "ada@example.com" }))).toEqual(expected);

    const duplicate = await paced(() => file.resend.contacts.create({ email: "ada@example.com" }));
    expect(duplicate.error).toMatchObject({ statusCode: 409, name: "validation_error" });

    expect(
      await succeeded(() =>
        file.resend.contacts.update({ email: "ada@example.com", lastName: "Lovelace", firstName: null, properties: { seats: null } }),
      ),
    ).toEqual({ object: "contact", id: created.id });
    expect(await succeeded(() => file.resend.contacts.get(created.id))).toMatchObject({
      first_name: null,
      last_name: "Lovelace",
      properties: {},
    });
    const wrongType = await paced(() => file.resend.contacts.update({ id: created.id, properties: { seats: "many" } }));
    expect(wrongType.error).toMatchObject({ name: "validation_error", message: "`properties.seats` must be a number." });

    expect((await succeeded(() => file.resend.contacts.list())).data.map((c) => c.id)).toContain(created.id);
    expect((await succeeded(() => file.resend.contacts.list({ segmentId: segment.id }))).data.map((c) => c.id)).toEqual([created.id]);

    expect(await succeeded(() => file.resend.contacts.remove({ email: "ada@example.com" }))).toEqual({
      object: "contact",
      contact: "ada@example.com",
      deleted: true,
    });
    expect((await paced(() => file.resend.contacts.get(created.id))).error).toMatchObject({
      name: "not_found",
      message: "Contact not found",
    });
    expect(await succeeded(() => file.resend.contacts.remove(created.id))).toEqual({
      object: "contact",
      contact: created.id,
      deleted: true,
    });
  });

  it("the legacy audience paths: create into, list, get, update and remove", async () => {
    const audience = await succeeded(() => file.resend.audiences.create({ name: "Legacy list" }));
    const created = await succeeded(() =>
      file.resend.contacts.create({ audienceId: audience.id, email: "old@example.com", firstName: "Old" }),
    );
    expect((await succeeded(() => file.resend.contacts.list({ audienceId: audience.id }))).data).toEqual([
      expect.objectContaining({ id: created.id, email: "old@example.com" }),
    ]);
    expect(await succeeded(() => file.resend.contacts.get({ audienceId: audience.id, email: "old@example.com" }))).toMatchObject({
      id: created.id,
      first_name: "Old",
    });
    expect(await succeeded(() => file.resend.contacts.update({ audienceId: audience.id, id: created.id, unsubscribed: true }))).toEqual({
      object: "contact",
      id: created.id,
    });
    expect(await succeeded(() => file.resend.contacts.get(created.id))).toMatchObject({ unsubscribed: true });
    expect(await succeeded(() => file.resend.contacts.remove({ audienceId: audience.id, id: created.id }))).toEqual({
      object: "contact",
      contact: created.id,
      deleted: true,
    });
  });

  it("segments of a contact: add, list, remove", async () => {
    const contact = await succeeded(() => file.resend.contacts.create({ email: "joiner@example.com" }));
    const segment = await succeeded(() => file.resend.segments.create({ name: "Joiners" }));
    expect(await succeeded(() => file.resend.contacts.segments.add({ email: "joiner@example.com", segmentId: segment.id }))).toEqual({
      id: segment.id,
    });
    expect((await succeeded(() => file.resend.contacts.segments.list({ contactId: contact.id }))).data).toEqual([
      { id: segment.id, name: "Joiners", created_at: expect.stringMatching(wireTimestamp) },
    ]);
    expect(await succeeded(() => file.resend.contacts.segments.remove({ contactId: contact.id, segmentId: segment.id }))).toEqual({
      id: segment.id,
      deleted: true,
    });
    expect((await succeeded(() => file.resend.contacts.segments.list({ email: "joiner@example.com" }))).data).toEqual([]);
  });

  it("topics of a contact: the effective subscription, changed with the SDK's bare array", async () => {
    const contact = await succeeded(() => file.resend.contacts.create({ email: "subscriber@example.com" }));
    const topic = await succeeded(() =>
      file.resend.topics.create({ name: "Offers", defaultSubscription: "opt_out", description: "Deals" }),
    );
    const subscription = async () =>
      (await succeeded(() => file.resend.contacts.topics.list({ id: contact.id }))).data.find((t) => t.id === topic.id);
    expect(await subscription()).toEqual({ id: topic.id, name: "Offers", description: "Deals", subscription: "opt_out" });
    expect(
      await succeeded(() =>
        file.resend.contacts.topics.update({ email: "subscriber@example.com", topics: [{ id: topic.id, subscription: "opt_in" }] }),
      ),
    ).toEqual({ id: contact.id });
    expect(await subscription()).toMatchObject({ subscription: "opt_in" });
  });
});

describe("resend.segments and file.resend.topics", () => {
  it("segments: create, get, update, list, remove", async () => {
    const created = await succeeded(() => file.resend.segments.create({ name: "Trial" }));
    expect(created).toMatchObject({ object: "segment", id: expect.stringMatching(uuid), name: "Trial" });
    expect(await succeeded(() => file.resend.segments.update(created.id, { name: "Trials" }))).toEqual({
      object: "segment",
      id: created.id,
    });
    expect(await succeeded(() => file.resend.segments.get(created.id))).toEqual({
      object: "segment",
      id: created.id,
      name: "Trials",
      created_at: expect.stringMatching(wireTimestamp),
    });
    expect((await succeeded(() => file.resend.segments.list())).data).toContainEqual({
      id: created.id,
      name: "Trials",
      created_at: expect.stringMatching(wireTimestamp),
    });
    expect(await succeeded(() => file.resend.segments.remove(created.id))).toEqual({ object: "segment", id: created.id, deleted: true });
    expect((await paced(() => file.resend.segments.get(created.id))).error).toMatchObject({
      name: "not_found",
      message: "Audience not found",
    });
  });

  it("topics: create, get, update, list, remove; the default subscription stays", async () => {
    const created = await succeeded(() => file.resend.topics.create({ name: "Changelog", defaultSubscription: "opt_in" }));
    expect(created).toEqual({ object: "topic", id: expect.stringMatching(uuid) });
    expect(
      await succeeded(() => file.resend.topics.update({ id: created.id, name: "Release notes", description: "What shipped" })),
    ).toEqual({ object: "topic", id: created.id });
    expect(await succeeded(() => file.resend.topics.get(created.id))).toMatchObject({
      id: created.id,
      name: "Release notes",
      description: "What shipped",
      default_subscription: "opt_in",
    });
    expect((await succeeded(() => file.resend.topics.list())).data).toContainEqual(expect.objectContaining({ id: created.id }));
    expect(await succeeded(() => file.resend.topics.remove(created.id))).toEqual({ object: "topic", id: created.id, deleted: true });
  });
});

describe("resend.suppressions", () => {
  it("add, get by id and email, list by origin, remove, and batches", async () => {
    const added = await succeeded(() => file.resend.suppressions.add({ email: "stop@example.com" }));
    expect(added).toEqual({ object: "suppression", id: expect.stringMatching(uuid) });
    const expected = {
      object: "suppression",
      id: added.id,
      email: "stop@example.com",
      origin: "manual",
      source_id: null,
      created_at: expect.stringMatching(wireTimestamp),
    };
    expect(await succeeded(() => file.resend.suppressions.get(added.id))).toEqual(expected);
    expect(await succeeded(() => file.resend.suppressions.get("stop@example.com"))).toEqual(expected);
    expect((await succeeded(() => file.resend.suppressions.list({ origin: "manual" }))).data).toContainEqual(
      expect.objectContaining({ id: added.id }),
    );
    expect((await succeeded(() => file.resend.suppressions.list({ origin: "bounce" }))).data).toEqual([]);
    expect(await succeeded(() => file.resend.suppressions.remove("stop@example.com"))).toEqual({
      object: "suppression",
      id: added.id,
      deleted: true,
    });

    const batch = await succeeded(() => file.resend.suppressions.batch.add({ emails: ["b1@example.com", "b2@example.com"] }));
    expect(batch.data).toHaveLength(2);
    const removed = await succeeded(() => file.resend.suppressions.batch.remove({ ids: batch.data.map((s) => s.id) }));
    expect(removed.data).toEqual(batch.data.map((s) => ({ object: "suppression", id: s.id, deleted: true })));
  });
});
