import { describe, expect, it } from "vitest";
import { serverForFile } from "../support/serverForFile.js";
import { paced, uuid, wireTimestamp } from "../support/wire.js";

/**
 * Sending through the official SDK (docs/wire-compatibility.md §6.1): the shapes of send, get, list and batch,
 * idempotent replay, and the state of a scheduled email (the delivery e2e covers what reaches SMTP).
 */

const file = serverForFile({ TIDINGS_ALLOW_UNVERIFIED_FROM: "true" });

const message = {
  from: "Acme <hello@acme.test>",
  to: ["ann@example.test"],
  subject: "Welcome",
  html: "<p>Hello <strong>Ann</strong></p>",
  tags: [{ name: "kind", value: "welcome" }],
};

describe("file.resend.emails", () => {
  it("send answers the id, and get returns the Email object", async () => {
    const sent = await paced(() => file.resend.emails.send(message));
    expect(sent.error).toBeNull();
    expect(sent.data).toEqual({ id: expect.stringMatching(uuid) });
    const { data, error } = await paced(() => file.resend.emails.get(sent.data!.id));
    expect(error).toBeNull();
    expect(data).toEqual({
      object: "email",
      id: sent.data!.id,
      to: ["ann@example.test"],
      from: "Acme <hello@acme.test>",
      created_at: expect.stringMatching(wireTimestamp),
      subject: "Welcome",
      html: "<p>Hello <strong>Ann</strong></p>",
      text: "Hello Ann",
      cc: null,
      bcc: null,
      reply_to: null,
      last_event: expect.stringMatching(/^(queued|sent|delivered)$/),
      message_id: `<${sent.data!.id}@${new URL(file.server.url).hostname}>`,
      scheduled_at: null,
      tags: [{ name: "kind", value: "welcome" }],
    });
  });

  it("send refuses a bad from with the contract's error", async () => {
    const { data, error } = await paced(() => file.resend.emails.send({ ...message, from: "not an address" }));
    expect(data).toBeNull();
    expect(error).toEqual({ statusCode: 422, name: "invalid_from_address", message: expect.stringContaining("`from`") });
  });

  it("list pages newest first without html, text and tags", async () => {
    const ids: string[] = [];
    for (const subject of ["first", "second"]) ids.push((await paced(() => file.resend.emails.send({ ...message, subject }))).data!.id);
    const { data, error } = await paced(() => file.resend.emails.list({ limit: 1 }));
    expect(error).toBeNull();
    expect(data).toMatchObject({ object: "list", has_more: true, data: [{ id: ids[1], subject: "second" }] });
    expect(data!.data[0]).not.toHaveProperty("html");
    const next = await paced(() => file.resend.emails.list({ limit: 1, after: ids[1]! }));
    expect(next.data!.data[0]!.id).toBe(ids[0]);
  });

  it("replays the same id for the same idempotency key, and refuses the key with another body", async () => {
    const first = await paced(() => file.resend.emails.send(message, { idempotencyKey: "e2e-welcome-1" }));
    const again = await paced(() => file.resend.emails.send(message, { idempotencyKey: "e2e-welcome-1" }));
    expect(again.data).toEqual(first.data);
    const changed = await paced(() => file.resend.emails.send({ ...message, subject: "Other" }, { idempotencyKey: "e2e-welcome-1" }));
    expect(changed.error?.name).toBe("invalid_idempotent_request");
  });

  it("reschedules and cancels a scheduled email", async () => {
    const sent = await paced(() => file.resend.emails.send({ ...message, scheduledAt: "in 1 hour" }));
    expect(sent.error).toBeNull();
    const scheduled = await paced(() => file.resend.emails.get(sent.data!.id));
    expect(scheduled.data).toMatchObject({ last_event: "scheduled", scheduled_at: expect.stringMatching(wireTimestamp) });

    const later = new Date(Date.now() + 3 * 3600_000);
    const moved = await paced(() => file.resend.emails.update({ id: sent.data!.id, scheduledAt: later.toISOString() }));
    expect(moved.data).toEqual({ object: "email", id: sent.data!.id });
    expect((await paced(() => file.resend.emails.get(sent.data!.id))).data!.scheduled_at!.slice(0, 19)).toBe(
      later.toISOString().slice(0, 19).replace("T", " "),
    );

    const canceled = await paced(() => file.resend.emails.cancel(sent.data!.id));
    expect(canceled.data).toEqual({ object: "email", id: sent.data!.id });
    expect((await paced(() => file.resend.emails.get(sent.data!.id))).data!.last_event).toBe("canceled");
  });
});

describe("file.resend.batch", () => {
  it("strict: sends every email, in order", async () => {
    const { data, error } = await paced(() =>
      file.resend.batch.send([
        { ...message, subject: "b1" },
        { ...message, subject: "b2" },
      ]),
    );
    expect(error).toBeNull();
    expect(data!.data).toHaveLength(2);
    const second = await paced(() => file.resend.emails.get(data!.data[1]!.id));
    expect(second.data!.subject).toBe("b2");
  });

  it("strict: one invalid email refuses the batch", async () => {
    const { data, error } = await paced(() => file.resend.batch.send([message, { ...message, from: "nope" }]));
    expect(data).toBeNull();
    expect(error).toEqual({ statusCode: 422, name: "invalid_from_address", message: expect.stringMatching(/^Email 1: /) });
  });

  it("permissive: sends the valid emails and reports the others by index", async () => {
    const { data, error } = await paced(() =>
      file.resend.batch.send([{ ...message, from: "nope" }, message], { batchValidation: "permissive" }),
    );
    expect(error).toBeNull();
    expect(data!.data).toEqual([{ id: expect.stringMatching(uuid) }]);
    expect(data!.errors).toEqual([{ index: 0, message: expect.stringContaining("`from`") }]);
  });
});
