import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Resend } from "resend";
import { startTestServer, type TestServer } from "../support/testServer.js";
import { paced, uuid, wireTimestamp } from "../support/wire.js";

/** Templates through the official SDK (docs/wire-compatibility.md §6.12): the SDK's camelCase options on our wire. */

let server: TestServer;
let templates: Resend["templates"];

beforeAll(async () => {
  server = await startTestServer();
  templates = new Resend(server.token, { baseUrl: server.url }).templates;
});
afterAll(async () => {
  await server?.stop();
});

const order = {
  name: "Order shipped",
  html: "<p>Hi {{{NAME}}}, order {{{ORDER}}} ships {{{WHEN|soon}}}</p>",
  subject: "Order {{{ORDER}}}",
  from: "Shop <shop@acme.test>",
  replyTo: "help@acme.test",
  variables: [
    { key: "NAME", type: "string" as const, fallbackValue: "there" },
    { key: "ORDER", type: "number" as const, fallbackValue: null },
  ],
};

describe("resend.templates", () => {
  it("create, then get returns the whole Template in the wire shape", async () => {
    const created = await paced(() => templates.create({ ...order, alias: "order-shipped" }));
    expect(created.error).toBeNull();
    expect(created.data).toEqual({ object: "template", id: expect.stringMatching(uuid) });
    const { data, error } = await paced(() => templates.get(created.data!.id));
    expect(error).toBeNull();
    expect(data).toEqual({
      object: "template",
      id: created.data!.id,
      name: "Order shipped",
      alias: "order-shipped",
      subject: "Order {{{ORDER}}}",
      html: order.html,
      text: null,
      from: "Shop <shop@acme.test>",
      reply_to: ["help@acme.test"],
      variables: [
        { key: "NAME", type: "string", fallback_value: "there", created_at: data!.created_at, updated_at: data!.updated_at },
        { key: "ORDER", type: "number", fallback_value: null, created_at: data!.created_at, updated_at: data!.updated_at },
      ],
      status: "draft",
      published_at: null,
      created_at: expect.stringMatching(wireTimestamp),
      updated_at: expect.stringMatching(wireTimestamp),
      has_unpublished_versions: false,
      current_version_id: expect.stringMatching(uuid),
    });
  });

  it("create(...).publish() chains into a published template, addressed by alias", async () => {
    const published = await paced(() => templates.create({ ...order, alias: "chained" }).publish());
    expect(published.error).toBeNull();
    const { data } = await paced(() => templates.get("chained"));
    expect(data).toMatchObject({ id: published.data!.id, status: "published", published_at: expect.stringMatching(wireTimestamp) });
  });

  it("update after publishing makes an unpublished version; publish makes it current", async () => {
    const { data: created } = await paced(() => templates.create({ ...order, alias: "versions" }).publish());
    const updated = await paced(() =>
      templates.update("versions", { subject: "Shipped: {{{ORDER}}}", replyTo: ["a@acme.test", "b@acme.test"] }),
    );
    expect(updated.data).toEqual({ object: "template", id: created!.id });
    const edited = (await paced(() => templates.get("versions"))).data!;
    expect(edited).toMatchObject({
      status: "published",
      has_unpublished_versions: true,
      subject: "Shipped: {{{ORDER}}}",
      reply_to: ["a@acme.test", "b@acme.test"],
    });
    expect((await paced(() => templates.publish("versions"))).data).toEqual({ object: "template", id: created!.id });
    expect((await paced(() => templates.get("versions"))).data).toMatchObject({
      has_unpublished_versions: false,
      current_version_id: edited.current_version_id,
    });
  });

  it("duplicate makes a draft copy without the alias", async () => {
    const { data: source } = await paced(() => templates.create({ ...order, alias: "to-copy" }));
    const copy = await paced(() => templates.duplicate("to-copy"));
    expect(copy.data).toEqual({ object: "template", id: expect.stringMatching(uuid) });
    expect(copy.data!.id).not.toBe(source!.id);
    expect((await paced(() => templates.get(copy.data!.id))).data).toMatchObject({
      name: "Order shipped (copy)",
      alias: null,
      status: "draft",
      html: order.html,
    });
  });

  it("list pages newest first with the SDK's before, after, limit query", async () => {
    const ids: string[] = [];
    for (const name of ["L1", "L2", "L3"]) ids.push((await paced(() => templates.create({ name, html: "<p>x</p>" }))).data!.id);
    const first = await paced(() => templates.list({ limit: 2 }));
    expect(first.error).toBeNull();
    expect(first.data).toMatchObject({ object: "list", has_more: true });
    expect(first.data!.data.map((t) => t.id)).toEqual([ids[2], ids[1]]);
    expect(Object.keys(first.data!.data[0]!).sort()).toEqual(["alias", "created_at", "id", "name", "published_at", "status", "updated_at"]);
    const after = await paced(() => templates.list({ limit: 1, after: ids[1]! }));
    expect(after.data!.data.map((t) => t.id)).toEqual([ids[0]]);
    const before = await paced(() => templates.list({ limit: 1, before: ids[1]! }));
    expect(before.data!.data.map((t) => t.id)).toEqual([ids[2]]);
  });

  it("remove deletes, frees the alias, and the template is then not found", async () => {
    const { data: created } = await paced(() => templates.create({ ...order, alias: "short-lived" }));
    expect((await paced(() => templates.remove("short-lived"))).data).toEqual({ object: "template", id: created!.id, deleted: true });
    expect((await paced(() => templates.get(created!.id))).error).toEqual({
      statusCode: 404,
      name: "not_found",
      message: "Template not found",
    });
    expect((await paced(() => templates.create({ ...order, alias: "short-lived" }))).error).toBeNull();
  });

  it("errors come back in the contract shape, naming the field", async () => {
    const taken = await paced(() => templates.create({ ...order, alias: "order-shipped" }));
    expect(taken.error).toMatchObject({ statusCode: 422, name: "validation_error", message: expect.stringContaining("`alias`") });
    const badFallback = await paced(() =>
      templates.create({ name: "x", html: "<p/>", variables: [{ key: "N", type: "number", fallbackValue: "3" as unknown as number }] }),
    );
    expect(badFallback.error).toMatchObject({
      statusCode: 422,
      name: "validation_error",
      message: expect.stringContaining("fallback_value"),
    });
    const badFrom = await paced(() => templates.create({ name: "x", html: "<p/>", from: "nobody" }));
    expect(badFrom.error).toMatchObject({ statusCode: 422, name: "invalid_from_address" });
    expect((await paced(() => templates.publish("no-such-template"))).error).toMatchObject({ statusCode: 404, name: "not_found" });
  });
});
