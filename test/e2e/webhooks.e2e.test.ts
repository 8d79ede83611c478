import { setTimeout as sleep } from "node:timers/promises";
import { Resend } from "resend";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { testMode } from "@tidings/postgres";
import { raiseBootstrapTeamRateLimit } from "../support/rateLimit.js";
import { startTestServer } from "../support/testServer.js";
import { startWebhookReceiver, type ReceivedWebhook, type WebhookReceiver } from "../support/webhookReceiver.js";
import { uuid, wireTimestamp } from "../support/wire.js";

type EventType = Parameters<Resend["webhooks"]["create"]>[0]["events"][number];

/** A receiver's check of one delivery, with the SDK's own helper; throws when the signature is not the secret's. */
const verify = (resend: Resend, received: ReceivedWebhook, webhookSecret: string) =>
  resend.webhooks.verify({
    payload: received.body,
    headers: {
      id: received.headers["svix-id"]!,
      timestamp: received.headers["svix-timestamp"]!,
      signature: received.headers["svix-signature"]!,
    },
    webhookSecret,
  }) as unknown as { type: string; created_at: string; data: Record<string, unknown> };

/** The `webhook-*` set must verify just as well: a Standard Webhooks receiver reads those. */
const verifyStandard = (resend: Resend, received: ReceivedWebhook, webhookSecret: string) =>
  resend.webhooks.verify({
    payload: received.body,
    headers: {
      id: received.headers["webhook-id"]!,
      timestamp: received.headers["webhook-timestamp"]!,
      signature: received.headers["webhook-signature"]!,
    },
    webhookSecret,
  });

async function setUp(env: Record<string, string>) {
  const server = await startTestServer({ TIDINGS_ALLOW_UNVERIFIED_FROM: "true", ...env });
  await raiseBootstrapTeamRateLimit(server.serving.runtime);
  const resend = new Resend(server.token, { baseUrl: server.url });
  const createWebhook = async (endpoint: string, events: string[]) => {
    const { data, error } = await resend.webhooks.create({ endpoint, events: events as EventType[] });
    if (error) throw new Error(`webhook create: ${error.name}: ${error.message}`);
    return data!;
  };
  const send = async (tags?: { name: string; value: string }[]) => {
    const { data, error } = await resend.emails.send({
      from: "Acme <hello@acme.test>",
      to: "ann@example.test",
      subject: "Hello",
      html: "<p>Hi</p>",
      ...(tags ? { tags } : {}),
    });
    if (error) throw new Error(`send: ${error.name}: ${error.message}`);
    return data!.id;
  };
  return { server, resend, createWebhook, send };
}

describe("webhooks through the resend SDK, into a real HTTP receiver on loopback", () => {
  let receiver: WebhookReceiver;
  let t: Awaited<ReturnType<typeof setUp>>;

  beforeAll(async () => {
    receiver = await startWebhookReceiver();
    // Retries 200 ms apart instead of 5 s, 5 min, …: the schedule is a setting.
    t = await setUp({ WEBHOOK_ALLOW_PRIVATE: "true", WEBHOOK_RETRY_SCHEDULE_MS: "0,200,200,200" });
  });
  afterAll(async () => {
    await t?.server.stop();
    await receiver?.close();
  });

  it("manages a webhook: create shows a whsec_ secret, get and list show it, patch and delete", async () => {
    const { resend, createWebhook } = t;
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
    const { resend } = t;
    const create = (body: unknown) => resend.webhooks.create(body as Parameters<Resend["webhooks"]["create"]>[0]);
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

  it("delivers the subscribed types, each signed and verified by the SDK, and not the others", async () => {
    const { resend, createWebhook, send } = t;
    const delivered = await createWebhook(`${receiver.url}/delivered`, ["email.delivered"]);
    const sent = await createWebhook(`${receiver.url}/sent`, ["email.sent", "email.bounced"]);
    const emailId = await send([{ name: "category", value: "welcome" }]);
    const [onDelivered] = await receiver.waitFor("/delivered", 1);
    const [onSent] = await receiver.waitFor("/sent", 1);
    const event = verify(resend, onDelivered!, delivered.signing_secret);
    expect(verifyStandard(resend, onDelivered!, delivered.signing_secret)).toEqual(event);
    expect(event).toEqual({
      type: "email.delivered",
      created_at: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/),
      data: {
        email_id: emailId,
        created_at: expect.any(String),
        from: "Acme <hello@acme.test>",
        to: ["ann@example.test"],
        subject: "Hello",
        message_id: expect.stringContaining(emailId),
        tags: { category: "welcome" },
      },
    });
    expect(verify(resend, onSent!, sent.signing_secret)).toMatchObject({ type: "email.sent", data: { email_id: emailId } });
    expect(() => verify(resend, onSent!, delivered.signing_secret)).toThrow();
    await sleep(500);
    expect(receiver.at("/delivered")).toHaveLength(1);
    expect(receiver.at("/sent")).toHaveLength(1);
    const listed = await resend.webhooks.events.list({ webhookId: delivered.id });
    expect(listed.data?.data).toEqual([
      {
        id: onDelivered!.headers["svix-id"]!.replace(/^msg_/, ""),
        type: "email.delivered",
        created_at: expect.stringMatching(wireTimestamp),
        status: "success",
      },
    ]);
  });

  it("retries a receiver answering 500 twice under the same id, lists the three attempts, and replays", async () => {
    const { resend, createWebhook, send } = t;
    receiver.answer("/flaky", [500, 500, 200]);
    const webhook = await createWebhook(`${receiver.url}/flaky`, ["email.delivered"]);
    const emailId = await send();
    const requests = await receiver.waitFor("/flaky", 3);
    const ids = new Set(requests.map((r) => r.headers["svix-id"]));
    expect(ids.size).toBe(1);
    for (const request of requests) expect(verify(resend, request, webhook.signing_secret).data.email_id).toBe(emailId);
    const eventId = requests[0]!.headers["svix-id"]!.replace(/^msg_/, "");
    const attempts = async (count: number) => {
      for (const deadline = Date.now() + 5_000; ; await sleep(50)) {
        const page = (await resend.webhooks.events.attempts.list({ webhookId: webhook.id, eventId })).data!;
        if (page.data.length >= count || Date.now() > deadline) return page.data;
      }
    };
    const listed = await attempts(3);
    expect(listed.map((a) => a.http_status_code)).toEqual([200, 500, 500]);
    expect(listed[1]).toMatchObject({
      id: expect.stringMatching(uuid),
      response: "failed with 500",
      sent_at: expect.stringMatching(wireTimestamp),
    });
    const got = await resend.webhooks.events.get({ webhookId: webhook.id, eventId });
    expect(got.data).toMatchObject({
      object: "webhook_event",
      id: eventId,
      type: "email.delivered",
      status: "success",
      next_attempt_at: null,
      payload: { type: "email.delivered" },
    });

    expect((await resend.webhooks.events.replay({ webhookId: webhook.id, eventId })).data).toEqual({
      object: "webhook_event",
      id: eventId,
    });
    const [, , , replayed] = await receiver.waitFor("/flaky", 4);
    expect(replayed!.headers["svix-id"]).toBe(requests[0]!.headers["svix-id"]);
    expect(replayed!.body).toBe(requests[0]!.body);
    expect(await attempts(4)).toHaveLength(4);
  });

  it("signs with both secrets during a rotation's grace", async () => {
    const { resend, createWebhook, send } = t;
    const webhook = await createWebhook(`${receiver.url}/rotated`, ["email.delivered"]);
    const rotated = await resend.webhooks.rotateSigningSecret(webhook.id);
    expect(rotated.data).toEqual({ object: "webhook", id: webhook.id, signing_secret: expect.stringMatching(/^whsec_/) });
    expect(rotated.data!.signing_secret).not.toBe(webhook.signing_secret);
    expect((await resend.webhooks.get(webhook.id)).data?.signing_secret).toBe(rotated.data!.signing_secret);
    await send();
    const [received] = await receiver.waitFor("/rotated", 1);
    expect(received!.headers["svix-signature"]!.split(" ")).toHaveLength(2);
    expect(verify(resend, received!, webhook.signing_secret).type).toBe("email.delivered");
    expect(verify(resend, received!, rotated.data!.signing_secret).type).toBe("email.delivered");
  });

  it("sends nothing to a disabled or a deleted webhook", async () => {
    const { resend, createWebhook, send } = t;
    const disabled = await createWebhook(`${receiver.url}/disabled`, ["email.delivered"]);
    const deleted = await createWebhook(`${receiver.url}/deleted`, ["email.delivered"]);
    await createWebhook(`${receiver.url}/witness`, ["email.delivered"]);
    await resend.webhooks.update(disabled.id, { status: "disabled" });
    await resend.webhooks.remove(deleted.id);
    await send();
    await receiver.waitFor("/witness", 1);
    await sleep(500);
    expect(receiver.at("/disabled")).toHaveLength(0);
    expect(receiver.at("/deleted")).toHaveLength(0);
    expect((await resend.webhooks.events.list({ webhookId: disabled.id })).data?.data).toEqual([]);
  });

  it("stops retrying at once when the webhook is disabled", async () => {
    const { resend, createWebhook, send } = t;
    receiver.answer("/failing", [500]);
    const webhook = await createWebhook(`${receiver.url}/failing`, ["email.delivered"]);
    await send();
    await receiver.waitFor("/failing", 2);
    await resend.webhooks.update(webhook.id, { status: "disabled" });
    const attemptsWhenDisabled = receiver.at("/failing").length;
    await sleep(800);
    // One attempt may have been in flight as the PATCH landed; none starts after it.
    expect(receiver.at("/failing").length).toBeLessThanOrEqual(attemptsWhenDisabled + 1);
    const [event] = (await resend.webhooks.events.list({ webhookId: webhook.id })).data!.data;
    expect(event).toMatchObject({ status: "failed" });
  });

  it("fires contact webhooks for the API's writes, and none for what a CSV import creates or updates (reference §6.10)", async () => {
    const { resend, createWebhook } = t;
    const webhook = await createWebhook(`${receiver.url}/contacts`, ["contact.created", "contact.updated", "contact.deleted"]);
    const { data: made } = await resend.contacts.create({ email: "api-made@example.test", firstName: "Ada" });
    const [created] = await receiver.waitFor("/contacts", 1);
    expect(verify(resend, created!, webhook.signing_secret)).toEqual({
      type: "contact.created",
      created_at: expect.stringMatching(/Z$/),
      data: {
        id: made!.id,
        audience_id: null,
        segment_ids: [],
        created_at: expect.stringMatching(/Z$/),
        updated_at: expect.stringMatching(/Z$/),
        email: "api-made@example.test",
        first_name: "Ada",
        unsubscribed: false,
      },
    });
    const { data: started } = await resend.contacts.imports.create({
      file: new Blob(["email,first_name\nimported-1@example.test,One\nimported-2@example.test,Two\napi-made@example.test,Changed\n"]),
      columnMap: { email: "email", firstName: "first_name" },
      onConflict: "upsert",
    });
    for (
      const deadline = Date.now() + 20_000;
      (await resend.contacts.imports.get(started!.id)).data?.status !== "completed";
      await sleep(100)
    )
      if (Date.now() > deadline) throw new Error("the import did not complete");
    await resend.contacts.update({ id: made!.id, lastName: "Lovelace" });
    await resend.contacts.remove(made!.id);
    const received = (await receiver.waitFor("/contacts", 3)).map((r) => verify(resend, r, webhook.signing_secret));
    await sleep(500);
    // Deliveries may arrive in any order (reference §8.4).
    expect(
      receiver
        .at("/contacts")
        .map((r) => (JSON.parse(r.body) as { type: string }).type)
        .sort(),
    ).toEqual(["contact.created", "contact.deleted", "contact.updated"]);
    expect(received.find((p) => p.type === "contact.updated")?.data).toMatchObject({
      id: made!.id,
      first_name: "Changed",
      last_name: "Lovelace",
    });
    expect(received.find((p) => p.type === "contact.deleted")?.data).toMatchObject({ id: made!.id, deleted: true });
  });

  it("fires domain webhooks for a create, a PATCH and a delete, with the domain and its records as of each", async () => {
    const { resend, createWebhook } = t;
    const webhook = await createWebhook(`${receiver.url}/domains`, ["domain.created", "domain.updated", "domain.deleted"]);
    const { data: made, error } = await resend.domains.create({ name: "hooked.example.test", region: "eu-west-1" });
    expect(error).toBeNull();
    await resend.domains.update({ id: made!.id, openTracking: true });
    await resend.domains.remove(made!.id);
    const received = (await receiver.waitFor("/domains", 3)).map((r) => verify(resend, r, webhook.signing_secret));
    await sleep(500);
    expect(
      receiver
        .at("/domains")
        .map((r) => (JSON.parse(r.body) as { type: string }).type)
        .sort(),
    ).toEqual(["domain.created", "domain.deleted", "domain.updated"]);
    const byType = (type: string) => received.find((p) => p.type === type)!.data as { records: { record: string }[] };
    expect(byType("domain.created")).toEqual({
      id: made!.id,
      name: "hooked.example.test",
      status: "not_started",
      created_at: expect.stringMatching(/Z$/),
      region: "eu-west-1",
      // The SDK types only the MX records with a priority.
      records: made!.records.map((r) => {
        const { record, name, type, ttl, status, value, priority } = r as typeof r & { priority?: number };
        return { record, name, type, ttl, status, value, ...(priority === undefined ? {} : { priority }) };
      }),
    });
    // Open tracking adds the tracking subdomain's CNAME, which the update shows and the create did not.
    expect(byType("domain.created").records.map((r) => r.record)).not.toContain("Tracking");
    expect(byType("domain.updated").records.map((r) => r.record)).toContain("Tracking");
    expect(byType("domain.deleted")).toMatchObject({ id: made!.id, name: "hooked.example.test" });
  });

  it("keeps a slow endpoint from delaying another", async () => {
    const { createWebhook, send } = t;
    const slowAnswerMs = 5_000;
    receiver.answer("/slow", [200], slowAnswerMs);
    await createWebhook(`${receiver.url}/slow`, ["email.sent", "email.delivered"]);
    await createWebhook(`${receiver.url}/fast`, ["email.sent", "email.delivered"]);
    for (let i = 0; i < 5; i++) await send();
    const fast = await receiver.waitFor("/fast", 10);
    const slow = await receiver.waitFor("/slow", 10);
    const eventOf = (r: ReceivedWebhook) => {
      const { type, data } = JSON.parse(r.body) as { type: string; data: { email_id: string } };
      return `${type} ${data.email_id}`;
    };
    const slowArrival = new Map(slow.map((r) => [eventOf(r), r.receivedAt]));
    // Each event reaches the fast endpoint before the slow one has answered it: nothing waits on a slow answer.
    for (const r of fast) expect(r.receivedAt).toBeLessThan(slowArrival.get(eventOf(r))! + slowAnswerMs);
  });
});

describe("webhooks with WEBHOOK_ALLOW_PRIVATE unset", () => {
  let receiver: WebhookReceiver;
  let t: Awaited<ReturnType<typeof setUp>>;

  beforeAll(async () => {
    receiver = await startWebhookReceiver();
    t = await setUp({ WEBHOOK_RETRY_SCHEDULE_MS: "0,100" });
  });
  afterAll(async () => {
    await t?.server.stop();
    await receiver?.close();
  });

  it("accepts http endpoints only in embedded mode (development) without the setting", async () => {
    // Subscribed to a type nothing emits yet, so nothing is sent to this name.
    const { error } = await t.resend.webhooks.create({ endpoint: "http://hooks.example.com/in", events: ["domain.created"] });
    if (testMode() === "server")
      expect(error).toMatchObject({ statusCode: 422, message: expect.stringContaining("`endpoint` field must be an https URL") });
    else expect(error).toBeNull();
  });

  it("refuses a loopback endpoint at delivery time and records why", async () => {
    const { resend, createWebhook, send } = t;
    // https: server mode accepts nothing else without the setting; the refusal comes before any connection.
    const webhook = await createWebhook(`https://127.0.0.1:${new URL(receiver.url).port}/private`, ["email.delivered"]);
    await send();
    let events: { id: string; status: string }[] = [];
    for (const deadline = Date.now() + 10_000; Date.now() < deadline; await sleep(100)) {
      events = (await resend.webhooks.events.list({ webhookId: webhook.id })).data?.data ?? [];
      if (events[0]?.status === "failed") break;
    }
    expect(events).toMatchObject([{ status: "failed", type: "email.delivered" }]);
    const attempts = (await resend.webhooks.events.attempts.list({ webhookId: webhook.id, eventId: events[0]!.id })).data?.data;
    expect(attempts).toHaveLength(2);
    expect(attempts![0]).toMatchObject({ http_status_code: null, response: expect.stringContaining("private, loopback or link-local") });
    expect(receiver.received).toHaveLength(0);
  });
});
