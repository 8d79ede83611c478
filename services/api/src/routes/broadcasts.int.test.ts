import { randomUUID } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import { broadcastEmailId } from "@tidings/core";
import { broadcastStream, emailStream } from "@tidings/domain";
import { wireError } from "../testing/jsonCalls.js";
import { apiTestFile } from "../testing/apiTestFile.js";

const file = apiTestFile("broadcasts");
const { call } = file;
let segmentId: string;

beforeAll(async () => {
  segmentId = (await call("POST", "/segments", { name: "Newsletter" })).body.id;
});
const timestamp = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}\.\d{6}\+00$/;
const draft = (overrides: Record<string, unknown> = {}) => ({
  segment_id: segmentId,
  from: "Acme <news@acme.test>",
  subject: "News",
  html: "<p>Hi {{{contact.first_name|there}}}</p>",
  name: "November",
  ...overrides,
});
const create = async (overrides: Record<string, unknown> = {}) => {
  const res = await call("POST", "/broadcasts", draft(overrides));
  expect(res.status).toBe(201);
  return res.body.id as string;
};

describe("POST /broadcasts and GET", () => {
  it("creates a draft that GET shows in the docs/wire-compatibility.md §6.11 shape, with the ledger's counts", async () => {
    const id = await create({ reply_to: "help@acme.test", preview_text: "Read me" });
    const got = await call("GET", `/broadcasts/${id}`);
    expect(got.status).toBe(200);
    expect(got.body).toMatchObject({
      object: "broadcast",
      id,
      name: "November",
      segment_id: segmentId,
      audience_id: segmentId,
      from: "Acme <news@acme.test>",
      subject: "News",
      reply_to: ["help@acme.test"],
      preview_text: "Read me",
      status: "draft",
      created_at: expect.stringMatching(timestamp),
      scheduled_at: null,
      sent_at: null,
      topic_id: null,
      text: null,
      counts: { recipients: 0, queued: 0, sent: 0, delivered: 0, bounced: 0, failed: 0, suppressed: 0 },
    });
  });

  it("takes the legacy audience_id, and lists newest first with audience_id equal to segment_id", async () => {
    const id = await create({ segment_id: undefined, audience_id: segmentId });
    const list = await call("GET", "/broadcasts?limit=1");
    expect(list.body).toMatchObject({
      object: "list",
      has_more: true,
      data: [{ id, segment_id: segmentId, audience_id: segmentId, status: "draft" }],
    });
  });

  it("names the missing or wrong field", async () => {
    expect(await call("POST", "/broadcasts", draft({ segment_id: undefined }))).toEqual(
      wireError(422, "missing_required_field", "Missing `segment_id` field."),
    );
    expect(await call("POST", "/broadcasts", draft({ from: undefined }))).toEqual(
      wireError(422, "missing_required_field", "Missing `from` field."),
    );
    expect((await call("POST", "/broadcasts", draft({ from: "not an address" }))).body.name).toBe("invalid_from_address");
    expect(await call("POST", "/broadcasts", draft({ segment_id: "00000000-0000-4000-8000-000000000000" }))).toEqual(
      wireError(422, "validation_error", /`segment_id`/),
    );
    expect(await call("POST", "/broadcasts", draft({ scheduled_at: "in 1 hour" }))).toEqual(
      wireError(422, "validation_error", /only allowed with `send: true`/),
    );
    expect(await call("POST", "/broadcasts", draft({ send: true, scheduled_at: "whenever" }))).toEqual(
      wireError(422, "validation_error", /scheduled_at/),
    );
  });

  it("leaves no draft behind when a send on create is refused", async () => {
    const before = (await call("GET", "/broadcasts")).body.data.length;
    expect((await call("POST", "/broadcasts", draft({ send: true, scheduled_at: "yesterday" }))).status).toBe(422);
    expect((await call("GET", "/broadcasts")).body.data.length).toBe(before);
  });

  it("hides a team's broadcasts from another team", async () => {
    const id = await create();
    expect(await call("GET", `/broadcasts/${id}`, undefined, file.other)).toEqual(wireError(404, "not_found", "Broadcast not found"));
    expect(await call("POST", `/broadcasts/${id}/send`, {}, file.other)).toEqual(wireError(404, "not_found", "Broadcast not found"));
    expect((await call("GET", "/broadcasts", undefined, file.other)).body.data).toEqual([]);
  });
});

describe("GET /broadcasts/:id/preview", () => {
  it("renders the broadcast for one contact of its segment, by id or email, filling a property's fallback", async () => {
    await call("POST", "/contact-properties", { key: "plan", type: "string", fallback_value: "free" });
    const contact = await call("POST", "/contacts", { email: "ada@readers.test", first_name: "Ada", segments: [{ id: segmentId }] });
    const id = await create({
      subject: "Hello {{{FIRST_NAME|there}}}",
      html: '<p>Hi {{{contact.first_name}}} on {{{contact.plan}}}, <a href="{{{SERVICE_UNSUBSCRIBE_URL}}}">leave</a></p>',
      text: "Hi {{{contact.first_name}}}",
    });
    const expected = {
      object: "broadcast_preview",
      broadcast_id: id,
      contact_id: contact.body.id,
      to: "ada@readers.test",
      from: "Acme <news@acme.test>",
      subject: "Hello Ada",
      html: '<p>Hi Ada on free, <a href="#unsubscribe-link-of-the-recipient">leave</a></p>',
      text: "Hi Ada",
    };
    expect(await call("GET", `/broadcasts/${id}/preview?contact=ada%40readers.test`)).toMatchObject({ status: 200, body: expected });
    expect((await call("GET", `/broadcasts/${id}/preview?contact=${contact.body.id}`)).body).toEqual(expected);
  });

  it("refuses a contact outside the segment or the team, a missing contact, and another team's broadcast", async () => {
    await call("POST", "/contacts", { email: "out@readers.test" });
    const id = await create();
    expect(await call("GET", `/broadcasts/${id}/preview?contact=out%40readers.test`)).toEqual(
      wireError(422, "validation_error", "`contact` is not a contact of the broadcast's segment."),
    );
    expect(await call("GET", `/broadcasts/${id}/preview?contact=nobody%40readers.test`)).toEqual(
      wireError(404, "not_found", "Contact not found"),
    );
    expect((await call("GET", `/broadcasts/${id}/preview`)).status).toBe(422);
    expect(await call("GET", `/broadcasts/${id}/preview?contact=out%40readers.test`, undefined, file.other)).toEqual(
      wireError(404, "not_found", "Broadcast not found"),
    );
  });
});

describe("the broadcast lifecycle", () => {
  it("updates and deletes drafts only", async () => {
    const id = await create();
    expect((await call("PATCH", `/broadcasts/${id}`, { subject: "Changed", text: "" })).status).toBe(200);
    expect((await call("GET", `/broadcasts/${id}`)).body).toMatchObject({ subject: "Changed", text: "" });
    expect((await call("POST", `/broadcasts/${id}/send`, { scheduled_at: "in 1 hour" })).status).toBe(200);
    expect(await call("PATCH", `/broadcasts/${id}`, { subject: "Again" })).toEqual(
      wireError(403, "validation_error", /Only drafts can be updated/),
    );
    expect(await call("DELETE", `/broadcasts/${id}`)).toEqual(wireError(403, "validation_error", /Only drafts can be deleted/));
    const another = await create();
    expect(await call("DELETE", `/broadcasts/${another}`)).toEqual({
      status: 200,
      body: { object: "broadcast", id: another, deleted: true },
    });
    expect((await call("GET", `/broadcasts/${another}`)).status).toBe(404);
  });

  it("schedules with natural language, cancels back to a draft, and refuses a cancel of a draft", async () => {
    const id = await create();
    const before = Date.now();
    expect(await call("POST", `/broadcasts/${id}/send`, { scheduled_at: "in 1 hour" })).toEqual({
      status: 200,
      body: { object: "broadcast", id },
    });
    const scheduled = (await call("GET", `/broadcasts/${id}`)).body;
    expect(scheduled.status).toBe("scheduled");
    const at = new Date(scheduled.scheduled_at.replace(" ", "T").replace("+00", "Z")).getTime();
    expect(at - before).toBeGreaterThan(3_500_000);
    expect(await call("POST", `/broadcasts/${id}/send`, {})).toEqual(wireError(403, "validation_error", /Only drafts can be sent/));
    expect(await call("POST", `/broadcasts/${id}/cancel`)).toEqual({ status: 200, body: { object: "broadcast", id } });
    expect((await call("GET", `/broadcasts/${id}`)).body).toMatchObject({ status: "draft", scheduled_at: null });
    expect(await call("POST", `/broadcasts/${id}/cancel`)).toEqual(
      wireError(403, "validation_error", /Only queued or scheduled broadcasts can be canceled/),
    );
  });

  it("duplicates into a new draft with the same content", async () => {
    const id = await create({ name: "Original" });
    await call("POST", `/broadcasts/${id}/send`, { scheduled_at: "in 2 hours" });
    const copy = await call("POST", `/broadcasts/${id}/duplicate`);
    expect(copy.status).toBe(201);
    expect((await call("GET", `/broadcasts/${copy.body.id}`)).body).toMatchObject({
      name: "Original (copy)",
      status: "draft",
      subject: "News",
      segment_id: segmentId,
      scheduled_at: null,
    });
  });

  it("refuses the recipients' bounce_type without type=bounced, and lists none for a draft", async () => {
    const id = await create();
    expect((await call("GET", `/broadcasts/${id}/recipients?bounce_type=permanent`)).status).toBe(422);
    expect(await call("GET", `/broadcasts/${id}/recipients?type=delivered`)).toEqual({
      status: 200,
      body: { object: "list", has_more: false, data: [] },
    });
  });
});

describe("a broadcast's engagement", () => {
  type Seen = { ipAddress: string; userAgent: string; machine: boolean; machineReason: string | null };
  const person: Seen = { ipAddress: "203.0.113.7", userAgent: "Mozilla/5.0", machine: false, machineReason: null };
  const scanner: Seen = { ipAddress: "40.94.0.1", userAgent: "Mozilla/5.0", machine: true, machineReason: "microsoft_safe_links" };
  const at = "2026-11-23 10:00:00.000000+00";

  /** Plans two recipients and records what the tracking routes would: Ann clicks twice and opens, Bob's clicks are a scanner's. */
  async function engagedBroadcast() {
    const id = await create();
    const [ann, bob] = [randomUUID(), randomUUID()];
    const recipients = [
      { contactId: ann, email: "ann@example.test" },
      { contactId: bob, email: "bob@example.test" },
    ];
    const metadata = { teamId: file.admin.teamId, actor: "test" };
    await file.testServices.store.append(
      broadcastStream(id),
      [
        {
          id: randomUUID(),
          type: "BroadcastBatchPlanned",
          data: { broadcastId: id, teamId: file.admin.teamId, batch: 0, recipients },
          metadata,
        },
      ],
      "any",
    );
    const click = (link: string, linkIndex: number, seen: Seen) => ({
      id: randomUUID(),
      type: "EmailClicked",
      data: { emailId: "", link, linkIndex, clickedAt: at, ...seen },
      metadata,
    });
    const annEmail = broadcastEmailId(id, ann);
    const bobEmail = broadcastEmailId(id, bob);
    const withEmail = (emailId: string, event: ReturnType<typeof click>) => ({ ...event, data: { ...event.data, emailId } });
    await file.testServices.store.append(
      emailStream(annEmail),
      [
        withEmail(annEmail, click("https://acme.test/pricing", 0, person)),
        withEmail(annEmail, click("https://acme.test/pricing", 0, person)),
        withEmail(annEmail, click("https://acme.test/blog", 1, person)),
        { id: randomUUID(), type: "EmailOpened", data: { emailId: annEmail, openedAt: at, ...person }, metadata },
      ],
      "any",
    );
    const { position } = await file.testServices.store.append(
      emailStream(bobEmail),
      [
        withEmail(bobEmail, click("https://acme.test/pricing", 0, scanner)),
        { id: randomUUID(), type: "EmailOpened", data: { emailId: bobEmail, openedAt: at, ...scanner }, metadata },
      ],
      "any",
    );
    expect(await file.testServices.projections.waitFor(position, 10_000)).toBe(true);
    return { id, annEmail };
  }

  it("lists clicked links by people's clicks, leaving out scanners, and pages through them", async () => {
    const { id } = await engagedBroadcast();
    const first = await call("GET", `/broadcasts/${id}/clicked-links?limit=1`);
    expect(first.body).toMatchObject({
      object: "list",
      has_more: true,
      data: [{ url: "https://acme.test/pricing", clicks: 2, unique_clicks: 1 }],
    });
    const next = await call("GET", `/broadcasts/${id}/clicked-links?limit=1&after=${first.body.data[0].id}`);
    expect(next.body).toMatchObject({ has_more: false, data: [{ url: "https://acme.test/blog", clicks: 1, unique_clicks: 1 }] });
    expect((await call("GET", `/broadcasts/${randomUUID()}/clicked-links`)).status).toBe(404);
  });

  it("lists the recipients a person opened or clicked, with counts and their clicked links", async () => {
    const { id, annEmail } = await engagedBroadcast();
    expect((await call("GET", `/broadcasts/${id}/recipients?type=opened`)).body.data).toEqual([
      { id: annEmail, contact_id: expect.any(String), email: "ann@example.test", status: "planned", count: 1 },
    ]);
    expect((await call("GET", `/broadcasts/${id}/recipients?type=clicked`)).body.data).toEqual([
      {
        id: annEmail,
        contact_id: expect.any(String),
        email: "ann@example.test",
        status: "planned",
        count: 3,
        clicked_links: [
          { url: "https://acme.test/blog", clicks: 1 },
          { url: "https://acme.test/pricing", clicks: 2 },
        ],
      },
    ]);
  });
});
