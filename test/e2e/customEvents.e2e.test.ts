import { Resend } from "resend";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { raiseBootstrapTeamRateLimit } from "../support/rateLimit.js";
import { startTestServer, type TestServer } from "../support/testServer.js";
import { outsideSdkTypes, succeeded, uuid, wireTimestamp } from "../support/wire.js";

/** Custom events (docs/wire-compatibility.md §6.15) and automation definitions (§6.14) through the resend SDK. */
let server: TestServer;
let resend: Resend;

beforeAll(async () => {
  server = await startTestServer();
  resend = new Resend(server.token, { baseUrl: server.url });
  await raiseBootstrapTeamRateLimit(server.serving.runtime);
});
afterAll(async () => {
  await server?.stop();
});

describe("resend.events", () => {
  it("create, get by id and by URL-encoded name, list, update the schema, remove", async () => {
    const { id } = await succeeded(() => resend.events.create({ name: "user.signed_up", schema: { plan: "string", seats: "number" } }));
    expect(id).toMatch(uuid);
    const byName = await succeeded(() => resend.events.get("user.signed_up"));
    expect(byName).toEqual({
      object: "event",
      id,
      name: "user.signed_up",
      schema: { plan: "string", seats: "number" },
      created_at: expect.stringMatching(wireTimestamp),
      updated_at: null,
    });
    expect(await succeeded(() => resend.events.get(id))).toEqual(byName);
    const list = await succeeded(() => resend.events.list());
    expect(list.data.map((e) => e.name)).toContain("user.signed_up");
    expect(await succeeded(() => resend.events.update("user.signed_up", { schema: null }))).toEqual({ object: "event", id });
    expect(await succeeded(() => resend.events.get(id))).toMatchObject({ schema: null, updated_at: expect.stringMatching(wireTimestamp) });
    expect(await succeeded(() => resend.events.remove("user.signed_up"))).toEqual({ object: "event", id, deleted: true });
    expect((await resend.events.get("user.signed_up")).error).toMatchObject({
      statusCode: 404,
      name: "not_found",
      message: "Event not found",
    });
    // The name is free again.
    await succeeded(() => resend.events.create({ name: "user.signed_up" }));
  });

  it("refuses reserved prefixes, a taken name and a bad schema with 422 naming the problem", async () => {
    expect((await resend.events.create({ name: "resend:email.sent" })).error).toMatchObject({
      statusCode: 422,
      name: "validation_error",
      message: expect.stringMatching(/reserved prefix `resend:`/),
    });
    expect((await resend.events.create({ name: "tidings:internal" })).error).toMatchObject({
      statusCode: 422,
      message: expect.stringMatching(/`tidings:`/),
    });
    await succeeded(() => resend.events.create({ name: "order.paid" }));
    expect((await resend.events.create({ name: "order.paid" })).error).toMatchObject({
      statusCode: 422,
      message: "An event with `name` `order.paid` already exists.",
    });
    expect((await resend.events.create({ name: "x.y", schema: { amount: "money" as "number" } })).error).toMatchObject({
      statusCode: 422,
      name: "validation_error",
    });
  });

  it("send answers 202 and creates the contact for an unknown email", async () => {
    await succeeded(() => resend.events.create({ name: "cart.abandoned", schema: { total: "number", at: "date" } }));
    const sent = await resend.events.send({
      event: "cart.abandoned",
      email: "new.person@example.test",
      payload: { total: 12.5, at: "2026-11-23T10:00:00Z" },
    });
    expect(sent.error).toBeNull();
    expect(sent.data).toEqual({ object: "event", event: "cart.abandoned" });
    const contact = await succeeded(() => resend.contacts.get({ email: "new.person@example.test" }));
    expect(contact.email).toBe("new.person@example.test");
    expect(
      (await resend.events.send({ event: "cart.abandoned", contactId: contact.id, payload: { total: 1, at: "2026-11-23" } })).error,
    ).toBeNull();
  });

  it("send refuses a payload off the schema, an unknown event, and a contact given twice or not at all", async () => {
    await succeeded(() => resend.events.create({ name: "invoice.due", schema: { amount: "number" } }));
    const wrongType = await resend.events.send({ event: "invoice.due", email: "a@example.test", payload: { amount: "ten" } });
    expect(wrongType.error).toMatchObject({
      statusCode: 422,
      name: "validation_error",
      message: "The `payload.amount` field must be a number.",
    });
    const missing = await resend.events.send({ event: "invoice.due", email: "a@example.test", payload: {} });
    expect(missing.error).toMatchObject({ statusCode: 422, message: expect.stringMatching(/`payload.amount`/) });
    const unknown = await resend.events.send({ event: "never.defined", email: "a@example.test" });
    expect(unknown.error).toMatchObject({
      statusCode: 422,
      name: "validation_error",
      message: expect.stringMatching(/`event` `never.defined` is not defined/),
    });
    const both = await outsideSdkTypes.post(resend, "/events/send", {
      event: "invoice.due",
      email: "a@example.test",
      contact_id: "x",
      payload: { amount: 1 },
    });
    expect(both.error).toMatchObject({ statusCode: 422, message: "Give exactly one of `contact_id` and `email`." });
    const neither = await outsideSdkTypes.post(resend, "/events/send", { event: "invoice.due", payload: { amount: 1 } });
    expect(neither.error).toMatchObject({ statusCode: 422 });
    // Nothing was written for the refused sends.
    expect((await resend.contacts.get({ email: "a@example.test" })).error).toMatchObject({ statusCode: 404 });
  });

  it("honours Idempotency-Key on send", async () => {
    await succeeded(() => resend.events.create({ name: "idem.check" }));
    const first = await resend.events.send(
      { event: "idem.check", email: "idem@example.test", payload: { n: 1 } },
      { headers: { "Idempotency-Key": "evt-1" } },
    );
    const again = await resend.events.send(
      { event: "idem.check", email: "idem@example.test", payload: { n: 1 } },
      { headers: { "Idempotency-Key": "evt-1" } },
    );
    expect(again).toMatchObject({ data: first.data, error: null });
    const conflict = await resend.events.send(
      { event: "idem.check", email: "idem@example.test", payload: { n: 2 } },
      { headers: { "Idempotency-Key": "evt-1" } },
    );
    expect(conflict.error).toMatchObject({ statusCode: 409, name: "invalid_idempotent_request" });
  });
});

describe("resend.automations: definitions", () => {
  let templateId: string;
  const steps = () => [
    { key: "start", type: "trigger" as const, config: { eventName: "member.joined" } },
    { key: "hello", type: "send_email" as const, config: { template: { id: templateId } } },
  ];
  const connections = [{ from: "start", to: "hello" }];

  beforeAll(async () => {
    await succeeded(() => resend.events.create({ name: "member.joined" }));
    templateId = (
      await succeeded(() => resend.templates.create({ name: "Hello", html: "<p>Hello</p>", subject: "Hello", from: "Acme <hi@acme.test>" }))
    ).id;
  });

  it("create, get, list with a status filter, update, duplicate, stop, remove", async () => {
    const { id } = await succeeded(() => resend.automations.create({ name: "Joiners", steps: steps(), connections }));
    const got = await succeeded(() => resend.automations.get(id));
    expect(got).toEqual({
      object: "automation",
      id,
      name: "Joiners",
      status: "disabled",
      created_at: expect.stringMatching(wireTimestamp),
      updated_at: null,
      steps: [
        { key: "start", type: "trigger", config: { event_name: "member.joined" } },
        { key: "hello", type: "send_email", config: { template: { id: templateId } } },
      ],
      connections: [{ from: "start", to: "hello", type: "default" }],
    });
    expect(await succeeded(() => resend.automations.update(id, { status: "enabled", name: "Joiners!" }))).toEqual({
      object: "automation",
      id,
    });
    const enabled = await succeeded(() => resend.automations.list({ status: "enabled" }));
    // trigger_event is a Tidings extension (docs/wire-compatibility.md §6.14), which the SDK's types do not know.
    expect(enabled.data.map((a) => [a.id, (a as { trigger_event?: unknown }).trigger_event])).toEqual([[id, "member.joined"]]);
    expect((await succeeded(() => resend.automations.list({ status: "disabled" }))).data.map((a) => a.id)).not.toContain(id);
    const copy = await succeeded(() => resend.automations.duplicate(id));
    expect(await succeeded(() => resend.automations.get(copy.id))).toMatchObject({
      name: "Joiners! (copy)",
      status: "disabled",
      steps: got.steps,
    });
    expect(await succeeded(() => resend.automations.stop(id))).toEqual({ object: "automation", id, status: "disabled" });
    expect(await succeeded(() => resend.automations.remove(id))).toEqual({ object: "automation", id, deleted: true });
    expect((await resend.automations.get(id)).error).toMatchObject({ statusCode: 404, message: "Automation not found" });
  });

  it("refuses invalid graphs with 422 naming the problem", async () => {
    const refused = async (payload: Partial<Parameters<Resend["automations"]["create"]>[0]>) =>
      (
        await resend.automations.create({ name: "Bad", steps: steps(), connections, ...payload } as Parameters<
          Resend["automations"]["create"]
        >[0])
      ).error;
    expect(await refused({ steps: [steps()[1]!], connections: [] })).toMatchObject({
      statusCode: 422,
      message: expect.stringMatching(/exactly one `trigger`/),
    });
    expect(
      await refused({ steps: [{ key: "start", type: "trigger", config: { eventName: "not.defined" } }], connections: [] }),
    ).toMatchObject({
      statusCode: 422,
      message: expect.stringMatching(/`not.defined` is not defined/),
    });
    expect(
      await refused({
        steps: [steps()[0]!, { key: "hello", type: "send_email", config: { template: { id: "00000000-0000-4000-8000-000000000000" } } }],
      }),
    ).toMatchObject({
      message: expect.stringMatching(/which does not exist/),
    });
    expect(await refused({ connections: [] })).toMatchObject({ message: "Step `hello` cannot be reached from the trigger." });
    expect(await refused({ connections: [...connections, { from: "hello", to: "ghost" }] })).toMatchObject({
      message: "Connection to `ghost` names no step.",
    });
    expect(await refused({ steps: [...steps(), { key: "hello", type: "delay", config: { duration: "1 hour" } }] })).toMatchObject({
      message: expect.stringMatching(/used twice/),
    });
    expect(
      await refused({
        steps: [...steps(), { key: "wait", type: "delay", config: { duration: "whenever" } }],
        connections: [...connections, { from: "hello", to: "wait" }],
      }),
    ).toMatchObject({
      message: expect.stringMatching(/Step `wait` \(delay\) has an invalid config/),
    });
    expect(
      await refused({
        steps: [...steps(), { key: "wait", type: "delay", config: { duration: "1 hour" } }],
        connections: [...connections, { from: "hello", to: "wait" }, { from: "wait", to: "hello" }],
      }),
    ).toMatchObject({
      message: expect.stringMatching(/cycle/),
    });
    const unpaired = await fetch(`${server.url}/automations`, {
      method: "POST",
      headers: { authorization: `Bearer ${server.token}`, "content-type": "application/json" },
      body: JSON.stringify({ name: "x", steps: steps() }),
    });
    expect(unpaired.status).toBe(422);
    expect(await unpaired.json()).toMatchObject({ message: "`steps` and `connections` must be given together." });
  });
});
