import { describe, expect, it } from "vitest";
import { wireError } from "../testing/jsonCalls.js";
import { apiTestFile } from "../testing/apiTestFile.js";

/** Contact properties, segments, topics and a contact's memberships (docs/wire-compatibility.md §6.7, §6.8, §6.9, §6.13). */

const file = apiTestFile("audience");
const { call } = file;
const error = wireError;
const unknownId = "00000000-0000-4000-8000-000000000000";

describe("/contact-properties", () => {
  it("creates, gets, lists, changes the fallback and deletes", async () => {
    const created = await call("POST", "/contact-properties", { key: "plan", type: "string", fallback_value: "free" });
    expect(created).toEqual({ status: 201, body: { object: "contact_property", id: expect.any(String) } });
    const { id } = created.body;
    expect((await call("GET", `/contact-properties/${id}`)).body).toEqual({
      object: "contact_property",
      id,
      key: "plan",
      type: "string",
      fallback_value: "free",
      created_at: expect.any(String),
    });
    expect(await call("PATCH", `/contact-properties/${id}`, { fallback_value: "trial" })).toEqual({
      status: 200,
      body: { object: "contact_property", id },
    });
    expect((await call("GET", "/contact-properties")).body.data).toEqual([expect.objectContaining({ id, fallback_value: "trial" })]);
    expect(await call("DELETE", `/contact-properties/${id}`)).toEqual({
      status: 200,
      body: { object: "contact_property", id, deleted: true },
    });
    expect(await call("GET", `/contact-properties/${id}`)).toEqual(error(404, "not_found", "Contact property not found"));
    // The key is free again once its property is deleted.
    expect((await call("POST", "/contact-properties", { key: "plan", type: "number" })).status).toBe(201);
  });

  it("keeps a key unique within a team only", async () => {
    expect((await call("POST", "/contact-properties", { key: "unique_key", type: "string" })).status).toBe(201);
    expect(await call("POST", "/contact-properties", { key: "unique_key", type: "number" })).toEqual(
      error(422, "validation_error", /`key` `unique_key` already exists/),
    );
    expect((await call("POST", "/contact-properties", { key: "Unique_Key", type: "string" })).status).toBe(201);
    expect((await call("POST", "/contact-properties", { key: "unique_key", type: "string" }, file.other)).status).toBe(201);
  });

  it("names the field of bad input", async () => {
    expect(await call("POST", "/contact-properties", { type: "string" })).toEqual(
      error(422, "missing_required_field", "Missing `key` field."),
    );
    expect(await call("POST", "/contact-properties", { key: "k" })).toEqual(error(422, "missing_required_field", "Missing `type` field."));
    expect(await call("POST", "/contact-properties", { key: "k", type: "boolean" })).toEqual(error(422, "validation_error", /`type`/));
    expect(await call("POST", "/contact-properties", { key: "has space", type: "string" })).toEqual(
      error(422, "validation_error", /`key`/),
    );
    expect(await call("POST", "/contact-properties", { key: "k".repeat(51), type: "string" })).toEqual(
      error(422, "validation_error", /`key`/),
    );
    expect(await call("POST", "/contact-properties", { key: "email", type: "string" })).toEqual(error(422, "validation_error", /built-in/));
    expect(await call("POST", "/contact-properties", { key: "n", type: "number", fallback_value: "x" })).toEqual(
      error(422, "validation_error", /`fallback_value`/),
    );
    const { body } = await call("POST", "/contact-properties", { key: "num", type: "number", fallback_value: 1 });
    expect(await call("PATCH", `/contact-properties/${body.id}`, { fallback_value: "one" })).toEqual(
      error(422, "validation_error", /`fallback_value`/),
    );
    expect(await call("PATCH", `/contact-properties/${body.id}`, {})).toEqual(
      error(422, "missing_required_field", "Missing `fallback_value` field."),
    );
    expect(await call("PATCH", `/contact-properties/${body.id}`, { fallback_value: 2 }, file.other)).toEqual(
      error(404, "not_found", "Contact property not found"),
    );
  });
});

describe("/segments", () => {
  it("creates, gets, renames, lists and deletes idempotently, with Audience not found", async () => {
    const created = await call("POST", "/segments", { name: "VIP" });
    expect(created).toEqual({ status: 201, body: { object: "segment", id: expect.any(String), name: "VIP" } });
    const { id } = created.body;
    expect(await call("PATCH", `/segments/${id}`, { name: "VIPs" })).toEqual({ status: 200, body: { object: "segment", id } });
    expect((await call("GET", `/segments/${id}`)).body).toEqual({ object: "segment", id, name: "VIPs", created_at: expect.any(String) });
    expect((await call("GET", `/audiences/${id}`)).body).toMatchObject({ object: "audience", id });
    expect((await call("GET", "/segments")).body.data).toContainEqual({ id, name: "VIPs", created_at: expect.any(String) });
    expect(await call("GET", `/segments/${id}`, undefined, file.other)).toEqual(error(404, "not_found", "Audience not found"));
    expect(await call("DELETE", `/segments/${id}`)).toEqual({ status: 200, body: { object: "segment", id, deleted: true } });
    expect(await call("DELETE", `/segments/${id}`)).toEqual({ status: 200, body: { object: "segment", id, deleted: true } });
    expect(await call("PATCH", `/segments/${id}`, { name: "x" })).toEqual(error(404, "not_found", "Audience not found"));
  });

  it("names the field of bad input", async () => {
    expect(await call("POST", "/segments", {})).toEqual(error(422, "missing_required_field", "Missing `name` field."));
    expect(await call("POST", "/segments", { name: "" })).toEqual(error(422, "missing_required_field", "Missing `name` field."));
    expect(await call("POST", "/audiences", { name: "n".repeat(256) })).toEqual(error(422, "validation_error", /`name`/));
  });
});

describe("/topics", () => {
  it("creates, gets, updates name and description, lists and deletes", async () => {
    const created = await call("POST", "/topics", { name: "News", default_subscription: "opt_out", description: "Monthly" });
    expect(created).toEqual({ status: 201, body: { object: "topic", id: expect.any(String) } });
    const { id } = created.body;
    expect(await call("PATCH", `/topics/${id}`, { id, name: "Newsletter", description: null })).toEqual({
      status: 200,
      body: { object: "topic", id },
    });
    expect((await call("GET", `/topics/${id}`)).body).toEqual({
      object: "topic",
      id,
      name: "Newsletter",
      description: null,
      default_subscription: "opt_out",
      visibility: "private",
      created_at: expect.any(String),
    });
    expect((await call("GET", "/topics")).body).toMatchObject({
      object: "list",
      data: expect.arrayContaining([expect.objectContaining({ id })]),
    });
    expect(await call("DELETE", `/topics/${id}`)).toEqual({ status: 200, body: { object: "topic", id, deleted: true } });
    expect(await call("GET", `/topics/${id}`)).toEqual(error(404, "not_found", "Topic not found"));
  });

  it("keeps default_subscription as created", async () => {
    const { body } = await call("POST", "/topics", { name: "Fixed", default_subscription: "opt_in" });
    expect(await call("PATCH", `/topics/${body.id}`, { default_subscription: "opt_out" })).toEqual(
      error(422, "validation_error", /`default_subscription` cannot be changed/),
    );
    expect(await call("PATCH", `/topics/${body.id}`, { defaultSubscription: "opt_out" })).toEqual(
      error(422, "validation_error", /`default_subscription` cannot be changed/),
    );
    expect((await call("GET", `/topics/${body.id}`)).body.default_subscription).toBe("opt_in");
  });

  it("names the field of bad input", async () => {
    expect(await call("POST", "/topics", { name: "x" })).toEqual(
      error(422, "missing_required_field", "Missing `default_subscription` field."),
    );
    expect(await call("POST", "/topics", { name: "x", default_subscription: "sometimes" })).toEqual(
      error(422, "validation_error", /`default_subscription`/),
    );
    expect(await call("POST", "/topics", { name: "n".repeat(51), default_subscription: "opt_in" })).toEqual(
      error(422, "validation_error", /`name`/),
    );
    expect(await call("POST", "/topics", { name: "x", default_subscription: "opt_in", description: "d".repeat(201) })).toEqual(
      error(422, "validation_error", /`description`/),
    );
    expect(await call("PATCH", `/topics/${unknownId}`, { name: "x" })).toEqual(error(404, "not_found", "Topic not found"));
  });
});

describe("a contact's segments and topics", () => {
  it("adds to and removes from segments, by id or email", async () => {
    const { body: contact } = await call("POST", "/contacts", { email: "member@example.com" });
    const { body: a } = await call("POST", "/segments", { name: "A" });
    const { body: b } = await call("POST", "/segments", { name: "B" });
    expect(await call("POST", `/contacts/member@example.com/segments/${a.id}`)).toEqual({ status: 200, body: { id: a.id } });
    expect(await call("POST", `/contacts/${contact.id}/segments/${b.id}`)).toEqual({ status: 200, body: { id: b.id } });
    expect(await call("POST", `/contacts/${contact.id}/segments/${b.id}`)).toEqual({ status: 200, body: { id: b.id } });
    expect((await call("GET", `/contacts/${contact.id}/segments`)).body).toEqual({
      object: "list",
      has_more: false,
      data: [
        { id: b.id, name: "B", created_at: expect.any(String) },
        { id: a.id, name: "A", created_at: expect.any(String) },
      ],
    });
    expect(await call("DELETE", `/contacts/${contact.id}/segments/${a.id}`)).toEqual({ status: 200, body: { id: a.id, deleted: true } });
    await call("DELETE", `/segments/${b.id}`);
    expect((await call("GET", `/contacts/member@example.com/segments`)).body.data).toEqual([]);
    expect(await call("POST", `/contacts/${contact.id}/segments/${unknownId}`)).toEqual(error(404, "not_found", "Audience not found"));
    expect(await call("POST", `/contacts/nobody@example.com/segments/${a.id}`)).toEqual(error(404, "not_found", "Contact not found"));
  });

  it("shows the effective subscription per topic, and takes a bare array or {topics}", async () => {
    const { body: news } = await call("POST", "/topics", { name: "News", default_subscription: "opt_in" });
    const { body: offers } = await call("POST", "/topics", { name: "Offers", default_subscription: "opt_out" });
    const { body: contact } = await call("POST", "/contacts", { email: "reader@example.com" });
    const subscriptions = async () =>
      Object.fromEntries(
        ((await call("GET", `/contacts/${contact.id}/topics`)).body.data as { id: string; subscription: string }[])
          .filter((t) => [news.id, offers.id].includes(t.id))
          .map((t) => [t.id, t.subscription]),
      );
    expect(await subscriptions()).toEqual({ [news.id]: "opt_in", [offers.id]: "opt_out" });
    expect(await call("PATCH", `/contacts/${contact.id}/topics`, [{ id: news.id, subscription: "opt_out" }])).toEqual({
      status: 200,
      body: { id: contact.id },
    });
    expect(await subscriptions()).toEqual({ [news.id]: "opt_out", [offers.id]: "opt_out" });
    expect(await call("PATCH", `/contacts/reader@example.com/topics`, { topics: [{ id: offers.id, subscription: "opt_in" }] })).toEqual({
      status: 200,
      body: { id: contact.id },
    });
    expect(await subscriptions()).toEqual({ [news.id]: "opt_out", [offers.id]: "opt_in" });
    const item = (await call("GET", `/contacts/${contact.id}/topics`)).body.data.find((t: { id: string }) => t.id === news.id);
    expect(item).toEqual({ id: news.id, name: "News", description: null, subscription: "opt_out" });
  });

  it("names the field of bad topic input", async () => {
    const { body: contact } = await call("POST", "/contacts", { email: "picky@example.com" });
    expect(await call("PATCH", `/contacts/${contact.id}/topics`, [{ id: unknownId, subscription: "opt_in" }])).toEqual(
      error(404, "not_found", "Topic not found"),
    );
    expect((await call("PATCH", `/contacts/${contact.id}/topics`, [{ id: unknownId, subscription: "always" }])).status).toBe(422);
    expect((await call("PATCH", `/contacts/${contact.id}/topics`, { topic: [] })).status).toBe(422);
  });
});
