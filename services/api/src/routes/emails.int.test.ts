import { createServer, type Server } from "node:http";
import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { handleCommand } from "@tidings/commands";
import { emailDecider, emailStream } from "@tidings/domain";
import type { ApiInstance } from "../app.js";
import { releaseIdempotencyKey } from "../plugins/idempotencyStore.js";
import { createTestServices, type TestKey, type TestServices } from "../testing/testServices.js";

let t: TestServices;
let app: ApiInstance;
let admin: TestKey;
let other: TestKey;
let loopback: Server;
let loopbackUrl: string;

beforeAll(async () => {
  t = await createTestServices();
  app = await t.app();
  admin = await t.aKey("emails-team");
  other = await t.aKey("emails-other-team");
  loopback = createServer((_req, res) => res.end("secret of the operator's network"));
  await new Promise<void>((resolve) => loopback.listen(0, "127.0.0.1", resolve));
  loopbackUrl = `http://127.0.0.1:${(loopback.address() as { port: number }).port}/internal.txt`;
});
afterAll(async () => {
  loopback?.close();
  await t?.dispose();
});

type Method = "GET" | "POST" | "PATCH";
const call = async (method: Method, url: string, key: TestKey | undefined, payload?: unknown, headers: Record<string, string> = {}) => {
  const res = await app.inject({
    method,
    url,
    headers: { ...key?.headers, "content-type": "application/json", ...headers },
    ...(payload === undefined ? {} : { payload: JSON.stringify(payload) }),
  });
  return { status: res.statusCode, body: res.json(), raw: res };
};
const email = (overrides: Record<string, unknown> = {}) => ({
  from: "Acme <hello@acme.test>",
  to: "ann@example.test",
  subject: "Welcome",
  html: "<p>Hello <strong>Ann</strong></p>",
  ...overrides,
});
const send = (overrides: Record<string, unknown> = {}, key: TestKey = admin) => call("POST", "/emails", key, email(overrides));
const error = (status: number, name: string, message: string | RegExp) => ({
  status,
  body: { statusCode: status, name, message: typeof message === "string" ? message : expect.stringMatching(message) },
});
const expectRefused = async (overrides: Record<string, unknown>, status: number, name: string, message: string | RegExp) => {
  const res = await send(overrides);
  expect({ status: res.status, body: res.body }).toEqual(error(status, name, message));
};

describe("POST /emails and GET /emails/:id", () => {
  it("answers 200 with the id, and GET shows the email queued with its text generated from the html", async () => {
    const res = await send({ cc: ["cc@example.test"], tags: [{ name: "kind", value: "welcome" }] });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body)).toEqual(["id"]);
    const got = await call("GET", `/emails/${res.body.id}`, admin);
    expect(got.status).toBe(200);
    expect(got.body).toEqual({
      object: "email",
      id: res.body.id,
      to: ["ann@example.test"],
      from: "Acme <hello@acme.test>",
      created_at: expect.stringMatching(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}\.\d{6}\+00$/),
      subject: "Welcome",
      html: "<p>Hello <strong>Ann</strong></p>",
      text: "Hello Ann",
      cc: ["cc@example.test"],
      bcc: null,
      reply_to: null,
      last_event: "queued",
      message_id: expect.stringMatching(new RegExp(`^<${res.body.id}@[^>]+>$`)),
      scheduled_at: null,
      tags: [{ name: "kind", value: "welcome" }],
    });
  });

  it('keeps the text part off when text is ""', async () => {
    const res = await send({ text: "" });
    expect((await call("GET", `/emails/${res.body.id}`, admin)).body.text).toBeNull();
  });

  it("does not show another team's email", async () => {
    const res = await send();
    expect(await call("GET", `/emails/${res.body.id}`, other)).toMatchObject(error(404, "not_found", "Email not found"));
  });

  it("replays the same id for the same Idempotency-Key", async () => {
    const first = await call("POST", "/emails", admin, email(), { "idempotency-key": "welcome-ann-1" });
    const again = await call("POST", "/emails", admin, email(), { "idempotency-key": "welcome-ann-1" });
    expect(again.body.id).toBe(first.body.id);
  });

  it("lets a sending key send", async () => {
    const sender = await t.aKey("emails-team", { permission: "sending_access", name: "sender" });
    expect((await send({}, sender)).status).toBe(200);
  });
});

describe("POST /emails validation", () => {
  it("refuses a from that is neither a@b.c nor Name <a@b.c>", () =>
    expectRefused(
      { from: "Acme hello@acme.test" },
      422,
      "invalid_from_address",
      /`from`.*`email@example.com` or `Name <email@example.com>`/,
    ));

  it("requires to", () => expectRefused({ to: undefined }, 422, "missing_required_field", "Missing `to` field."));

  it("refuses 51 recipients in to", () =>
    expectRefused(
      { to: Array.from({ length: 51 }, (_, i) => `u${i}@example.test`) },
      422,
      "validation_error",
      "Too many recipients in `to`: at most 50.",
    ));

  it("refuses an invalid cc address, naming the field", () =>
    expectRefused({ cc: "nobody" }, 422, "validation_error", /^Invalid `cc` field/));

  it("requires a subject without a template", () =>
    expectRefused({ subject: undefined }, 422, "missing_required_field", "Missing `subject` field."));

  it("refuses a template together with html", () =>
    expectRefused({ template: { id: "welcome" } }, 422, "validation_error", "The `template` field cannot be used together with `html`."));

  it("refuses a tag with a space", () =>
    expectRefused({ tags: [{ name: "has space", value: "x" }] }, 422, "validation_error", /^Invalid `tags` field/));

  it("refuses a header value with a line break", () =>
    expectRefused(
      { headers: { "X-Note": "a\r\nBcc: victim@example.test" } },
      422,
      "validation_error",
      /`X-Note` must not contain line breaks/,
    ));

  it("refuses a header Tidings sets itself", () =>
    expectRefused({ headers: { "Message-ID": "<forged@example.test>" } }, 422, "validation_error", /`Message-ID` is set by Tidings/));

  it("refuses an attachment with neither content nor path", () =>
    expectRefused(
      { attachments: [{ filename: "a.txt" }] },
      422,
      "invalid_attachment",
      "Invalid `attachments[0]`: it needs `content` or `path`.",
    ));

  it("refuses attachment content that is not base64", () =>
    expectRefused({ attachments: [{ filename: "a.txt", content: "%%%" }] }, 422, "invalid_attachment", /`content` must be base64/));

  it("refuses attachments over 40 MB after base64", () => {
    const half = "A".repeat(20 * 1024 * 1024 + 4);
    return expectRefused(
      {
        attachments: [
          { filename: "a.bin", content: half },
          { filename: "b.bin", content: half },
        ],
      },
      422,
      "invalid_attachment",
      "Attachments exceed the limit of 40 MB per email (after base64 encoding).",
    );
  });

  it("refuses to fetch a path attachment from a loopback address", () =>
    expectRefused(
      { attachments: [{ path: loopbackUrl }] },
      422,
      "invalid_attachment",
      /private, loopback and link-local addresses are not fetched/,
    ));

  it("refuses a host name that resolves to loopback", () =>
    expectRefused(
      { attachments: [{ path: loopbackUrl.replace("127.0.0.1", "localhost") }] },
      422,
      "invalid_attachment",
      /attachments\[0\]\.path/,
    ));

  it("refuses a scheduled_at that is no date", () =>
    expectRefused({ scheduled_at: "someday maybe" }, 422, "validation_error", /^Invalid `scheduled_at` field/));

  it("refuses a scheduled_at more than 30 days ahead", () =>
    expectRefused(
      { scheduled_at: "in 31 days" },
      422,
      "validation_error",
      "The `scheduled_at` field must be at most 30 days in the future.",
    ));

  it("refuses an unknown template", () =>
    expectRefused({ html: undefined, template: { id: "no-such-template" } }, 422, "validation_error", /no-such-template/));

  it("refuses a sending key restricted to another domain of the team", async () => {
    const domain = await call("POST", "/domains", admin, { name: "restricted-to.example.test" });
    const restricted = await t.aKey("emails-team", { permission: "sending_access", domainId: domain.body.id, name: "restricted" });
    const res = await send({}, restricted);
    expect(res.status).toBe(403);
    expect(res.body.name).toBe("validation_error");
  });

  it("refuses every from when TIDINGS_ALLOW_UNVERIFIED_FROM is false, naming the domain", async () => {
    const strict = await t.app({ services: { ...t.services, config: { ...t.services.config, TIDINGS_ALLOW_UNVERIFIED_FROM: false } } });
    const res = await strict.inject({
      method: "POST",
      url: "/emails",
      headers: { ...admin.headers, "content-type": "application/json" },
      payload: JSON.stringify(email()),
    });
    expect({ status: res.statusCode, body: res.json() }).toEqual(error(403, "validation_error", /`acme.test` domain is not verified/));
  });
});

describe("scheduling", () => {
  it("schedules, reschedules and cancels an email", async () => {
    const res = await send({ scheduled_at: "in 1 hour" });
    const scheduled = (await call("GET", `/emails/${res.body.id}`, admin)).body;
    expect(scheduled.last_event).toBe("scheduled");
    expect(scheduled.scheduled_at).toMatch(/\+00$/);

    const moved = await call("PATCH", `/emails/${res.body.id}`, admin, { scheduled_at: "2099-01-01T00:00:00Z" });
    expect(moved).toMatchObject(error(422, "validation_error", /at most 30 days/));
    const later = new Date(Date.now() + 2 * 3600_000);
    expect((await call("PATCH", `/emails/${res.body.id}`, admin, { scheduled_at: later.toISOString() })).body).toEqual({
      object: "email",
      id: res.body.id,
    });
    expect((await call("GET", `/emails/${res.body.id}`, admin)).body.scheduled_at.slice(0, 19)).toBe(
      later.toISOString().slice(0, 19).replace("T", " "),
    );

    expect((await call("POST", `/emails/${res.body.id}/cancel`, admin)).body).toEqual({ object: "email", id: res.body.id });
    const canceled = (await call("GET", `/emails/${res.body.id}`, admin)).body;
    expect(canceled.last_event).toBe("canceled");
    // The Message-ID it would have gone out with is known from the start, as Resend's document has it.
    expect([scheduled.message_id, canceled.message_id]).toEqual([
      expect.stringMatching(new RegExp(`^<${res.body.id}@`)),
      scheduled.message_id,
    ]);
    expect((await call("POST", `/emails/${res.body.id}/cancel`, admin)).status).toBe(200);
    expect(await call("PATCH", `/emails/${res.body.id}`, admin, { scheduled_at: "in 3 hours" })).toMatchObject(
      error(422, "validation_error", /it is canceled/),
    );
  });

  it("refuses to cancel an email that is not scheduled", async () => {
    const res = await send();
    expect(await call("POST", `/emails/${res.body.id}/cancel`, admin)).toMatchObject(
      error(422, "validation_error", "Email cannot be canceled: it is queued, not scheduled."),
    );
  });

  it("does not cancel another team's email", async () => {
    const res = await send({ scheduled_at: "in 1 hour" });
    expect(await call("POST", `/emails/${res.body.id}/cancel`, other)).toMatchObject(error(404, "not_found", "Email not found"));
  });
});

describe("POST /emails/batch", () => {
  const count = async (key: TestKey) => (await call("GET", "/emails?limit=100", key)).body.data.length;

  it("sends every email of a valid batch, in order", async () => {
    const batcher = await t.aKey("batch-team-1");
    const res = await call("POST", "/emails/batch", batcher, [email({ subject: "one" }), email({ subject: "two" })]);
    expect(res.status).toBe(200);
    expect(res.body.data).toHaveLength(2);
    const subjects = await Promise.all(
      res.body.data.map(async (d: { id: string }) => (await call("GET", `/emails/${d.id}`, batcher)).body.subject),
    );
    expect(subjects).toEqual(["one", "two"]);
  });

  it("strict: one invalid email refuses the whole batch and sends nothing", async () => {
    const batcher = await t.aKey("batch-team-2");
    const res = await call("POST", "/emails/batch", batcher, [email(), email({ from: "nope" })], { "x-batch-validation": "strict" });
    expect(res).toMatchObject(error(422, "invalid_from_address", /^Email 1: Invalid `from` field/));
    expect(await count(batcher)).toBe(0);
  });

  it("permissive: sends the valid emails and reports the others by index", async () => {
    const batcher = await t.aKey("batch-team-3");
    const res = await call(
      "POST",
      "/emails/batch",
      batcher,
      [email({ to: [] }), email(), email({ attachments: [{ content: "aGk=", filename: "a.txt" }] })],
      {
        "x-batch-validation": "permissive",
      },
    );
    expect(res.status).toBe(200);
    expect(res.body.data).toHaveLength(1);
    expect(res.body.errors).toEqual([
      { index: 0, message: "Missing `to` field." },
      { index: 2, message: "`attachments` is not supported in batch sends." },
    ]);
    expect(await count(batcher)).toBe(1);
  });

  // A process killed between recording a batch's emails and storing its answer leaves the key reserved
  // and unanswered; a minute later it is abandoned, and the client's retry with the key runs again.
  it("answers the retry of a batch whose first run died after recording it with the same ids, and queues nothing twice", async () => {
    const batcher = await t.aKey("batch-team-died");
    const batch = [email({ subject: "one" }), email({ subject: "two" })];
    const first = await call("POST", "/emails/batch", batcher, batch, { "idempotency-key": "died-after-recording" });
    expect(first.status).toBe(200);
    await sql`UPDATE api_idempotency_keys SET response_status = NULL, response_body = NULL, reserved_at = now() - interval '1 hour'
               WHERE key = 'died-after-recording'`.execute(t.test.database.db);
    const retried = await call("POST", "/emails/batch", batcher, batch, { "idempotency-key": "died-after-recording" });
    expect(retried.status).toBe(200);
    expect(retried.body.data).toEqual(first.body.data);
    expect(await count(batcher)).toBe(2);
  });

  // The database dropping the connection during the commit answers 503, and the key is released for the
  // retry, though the emails may have been recorded.
  it("answers the retry of a send released after it recorded its email with the same id", async () => {
    const sender = await t.aKey("send-team-released");
    const first = await call("POST", "/emails", sender, email(), { "idempotency-key": "released-after-recording" });
    const { rows } = await sql<{
      owner: string;
    }>`SELECT owner_request_id AS owner FROM api_idempotency_keys WHERE key = 'released-after-recording'`.execute(t.test.database.db);
    await releaseIdempotencyKey(
      t.test.database,
      { teamId: sender.teamId, method: "POST", path: "/emails", key: "released-after-recording" },
      rows[0]!.owner,
    );
    const retried = await call("POST", "/emails", sender, email(), { "idempotency-key": "released-after-recording" });
    expect(retried.status).toBe(200);
    expect(retried.body.id).toBe(first.body.id);
    expect(await count(sender)).toBe(1);
  });

  it("refuses more than 100 emails", async () => {
    const res = await call(
      "POST",
      "/emails/batch",
      admin,
      Array.from({ length: 101 }, () => email()),
    );
    expect(res).toMatchObject(error(422, "validation_error", /at most 100 items/));
  });
});

describe("GET /emails", () => {
  it("lists newest first, pages with after, and leaves out html, text and tags", async () => {
    const lister = await t.aKey("list-team");
    const ids: string[] = [];
    for (const subject of ["a", "b", "c"]) ids.push((await send({ subject }, lister)).body.id);
    const first = await call("GET", "/emails?limit=2", lister);
    expect(first.body.has_more).toBe(true);
    expect(first.body.data.map((e: { id: string }) => e.id)).toEqual([ids[2], ids[1]]);
    expect(Object.keys(first.body.data[0]).sort()).toEqual(
      ["bcc", "cc", "created_at", "from", "id", "last_event", "message_id", "reply_to", "scheduled_at", "subject", "to"].sort(),
    );
    const next = await call("GET", `/emails?limit=2&after=${ids[1]}`, lister);
    expect(next.body).toMatchObject({ has_more: false, data: [{ id: ids[0] }] });
  });
});

describe("attachments", () => {
  it("lists an email's attachments with signed download URLs that serve the bytes", async () => {
    const pdf = Buffer.from("%PDF-1.4 not really");
    const res = await send({
      attachments: [
        { filename: "invoice.pdf", content: pdf.toString("base64") },
        { filename: "logo.png", content: Buffer.from([137, 80, 78, 71]).toString("base64"), content_id: "logo" },
      ],
    });
    expect(res.status).toBe(200);
    const listed = await call("GET", `/emails/${res.body.id}/attachments`, admin);
    expect(listed.status).toBe(200);
    expect(listed.body.data.map((a: { filename: string }) => a.filename)).toEqual(["invoice.pdf", "logo.png"]);
    const byName = Object.fromEntries(listed.body.data.map((a: { filename: string }) => [a.filename, a]));
    expect(byName["invoice.pdf"]).toMatchObject({ size: pdf.length, content_type: "application/pdf", content_disposition: "attachment" });
    expect(byName["logo.png"]).toMatchObject({ content_type: "image/png", content_disposition: "inline", content_id: "logo" });

    const one = await call("GET", `/emails/${res.body.id}/attachments/${byName["invoice.pdf"].id}`, admin);
    expect(one.body).toMatchObject({ object: "attachment", id: byName["invoice.pdf"].id, expires_at: expect.stringMatching(/\+00$/) });
    const url = new URL(one.body.download_url);
    const download = await app.inject({ method: "GET", url: url.pathname + url.search });
    expect(download.statusCode).toBe(200);
    expect(download.headers["content-type"]).toBe("application/pdf");
    expect(download.rawPayload.equals(pdf)).toBe(true);

    const forged = await app.inject({
      method: "GET",
      url: url.pathname + url.search.replace(/signature=(.)/, (_, first: string) => `signature=${first === "x" ? "y" : "x"}`),
    });
    expect(forged.statusCode).toBe(403);
    const expired = await app.inject({ method: "GET", url: url.pathname + url.search.replace(/expires=\d+/, "expires=1000") });
    expect(expired.statusCode).toBe(403);
    expect(expired.json().name).toBe("validation_error");
  });

  it("does not list another team's attachments", async () => {
    const res = await send({ attachments: [{ filename: "a.txt", content: "aGk=" }] });
    expect(await call("GET", `/emails/${res.body.id}/attachments`, other)).toMatchObject(error(404, "not_found", "Email not found"));
  });
});

describe("suppression", () => {
  it("records a send to an address that hard-bounced as suppressed", async () => {
    const bounced = await send({ to: "Gone <gone@example.test>" });
    const { position } = await handleCommand({
      store: t.store,
      streamId: emailStream(bounced.body.id),
      decider: emailDecider,
      command: {
        type: "RecordDeliveryAttempt",
        results: [{ recipient: "gone@example.test", kind: "bounced", response: "550 5.1.1 no such user", code: 550 }],
        attempt: 1,
        nextAttemptAt: null,
        now: "2026-11-23 10:00:00.000000+00",
      },
      metadata: { actor: "saga:delivery", teamId: admin.teamId },
    });
    await t.services.waitFor(position!);
    expect((await call("GET", `/emails/${bounced.body.id}`, admin)).body.last_event).toBe("bounced");

    const again = await send({ to: "GONE@example.test" });
    expect((await call("GET", `/emails/${again.body.id}`, admin)).body.last_event).toBe("suppressed");
    const otherTeam = await send({ to: "gone@example.test" }, other);
    expect((await call("GET", `/emails/${otherTeam.body.id}`, other)).body.last_event).toBe("queued");
  });
});

describe("template sends", () => {
  it("sends the latest published version with the variables rendered, html-escaped in the html", async () => {
    const created = await call("POST", "/templates", admin, {
      name: "Welcome",
      alias: "welcome-mail",
      subject: "Hi {{{NAME}}}",
      from: "Acme <hello@acme.test>",
      html: "<p>Hello {{{NAME}}}, you have {{{COUNT|no}}} messages</p>",
      variables: [{ key: "NAME", type: "string" }],
    });
    expect(created.status).toBe(201);
    expect(
      await send({ from: undefined, subject: undefined, html: undefined, template: { id: "welcome-mail", variables: { NAME: "Ann" } } }),
    ).toMatchObject(error(422, "validation_error", /not published/));
    expect((await call("POST", `/templates/${created.body.id}/publish`, admin)).status).toBe(200);

    const res = await send({
      from: undefined,
      subject: undefined,
      html: undefined,
      template: { id: "welcome-mail", variables: { NAME: "<Ann>" } },
    });
    expect(res.status).toBe(200);
    const got = (await call("GET", `/emails/${res.body.id}`, admin)).body;
    expect(got).toMatchObject({
      from: "Acme <hello@acme.test>",
      subject: "Hi <Ann>",
      html: "<p>Hello &lt;Ann&gt;, you have no messages</p>",
    });
    expect(got.text).toBe("Hello <Ann>, you have no messages");

    expect(await send({ from: undefined, subject: undefined, html: undefined, template: { id: "welcome-mail" } })).toMatchObject(
      error(422, "validation_error", /Missing `NAME` in `template.variables`/),
    );
  });
});
