import { describe, expect, it } from "vitest";
import { webhookSuite } from "../support/webhookSuite.js";
import { outsideSdkTypes, uuid, wireTimestamp } from "../support/wire.js";

/** Managing webhooks through the resend SDK: what a create, get, list, patch and delete show, and what is refused. */
describe("webhooks through the resend SDK", () => {
  const t = webhookSuite({ WEBHOOK_ALLOW_PRIVATE: "true" });

  it("manages a webhook: create shows a whsec_ secret, get and list show it, patch and delete", async () => {
    const { receiver, resend, createWebhook } = t;
    const created = await createWebhook(`${receiver.url}/managed`, ["email.sent", "email.bounced"]);
    expect(created).toEqual({
      object: "webhook",
      id: expect.stringMatching(uuid),
      signing_secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]{32,}={0,2}$/),
    });
    expect(Buffer.from(created.signing_secret.slice(6), "base64").length).toBeGreaterThanOrEqual(24);
    const got = await resend.webhooks.get(created.id);
    expect(got.data).toEqual({
      object: "webhook",
      id: created.id,
      endpoint: `${receiver.url}/managed`,
      events: ["email.sent", "email.bounced"],
      status: "enabled",
      created_at: expect.stringMatching(wireTimestamp),
      signing_secret: created.signing_secret,
    });
    expect((await resend.webhooks.list()).data?.data.map((w) => w.id)).toContain(created.id);
    expect((await resend.webhooks.update(created.id, { status: "disabled", events: ["email.delivered"] })).data).toEqual({
      object: "webhook",
      id: created.id,
    });
    expect((await resend.webhooks.get(created.id)).data).toMatchObject({ status: "disabled", events: ["email.delivered"] });
    expect((await resend.webhooks.remove(created.id)).data).toEqual({ object: "webhook", id: created.id, deleted: true });
    expect((await resend.webhooks.get(created.id)).error).toMatchObject({ statusCode: 404, name: "not_found" });
  });

  it("refuses bad input with a 422 naming the field or the unknown type", async () => {
    const { receiver, resend } = t;
    const create = (body: Record<string, unknown>) => outsideSdkTypes.post(resend, "/webhooks", body);
    expect((await create({ endpoint: `${receiver.url}/x`, events: [] })).error).toMatchObject({
      statusCode: 422,
      name: "validation_error",
      message: expect.stringContaining("`events`"),
    });
    expect((await create({ endpoint: `${receiver.url}/x`, events: ["email.sent", "email.nope"] })).error).toMatchObject({
      statusCode: 422,
      message: expect.stringContaining("`events[1]`: `email.nope` is not a known event type"),
    });
    expect((await create({ endpoint: "not a url", events: ["email.sent"] })).error).toMatchObject({
      statusCode: 422,
      message: expect.stringContaining("`endpoint`"),
    });
    expect((await create({ endpoint: "ftp://example.com/in", events: ["email.sent"] })).error).toMatchObject({
      statusCode: 422,
      message: expect.stringContaining("`endpoint`"),
    });
    expect((await create({ events: ["email.sent"] })).error).toMatchObject({
      statusCode: 422,
      name: "missing_required_field",
      message: expect.stringContaining("`endpoint`"),
    });
    expect((await create({ endpoint: `${receiver.url}/x` })).error).toMatchObject({
      statusCode: 422,
      name: "missing_required_field",
      message: expect.stringContaining("`events`"),
    });
    expect((await resend.webhooks.list()).data?.data.map((w) => w.endpoint)).not.toContain(`${receiver.url}/x`);
  });
});
