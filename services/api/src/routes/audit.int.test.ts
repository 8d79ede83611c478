import { describe, expect, it } from "vitest";
import { apiTestFile } from "../testing/apiTestFile.js";
import { wireError } from "../testing/jsonCalls.js";

const file = apiTestFile("audit");
const { call } = file;

interface Item {
  id: string;
  stream: string;
  revision: number;
  type: string;
  actor: string | null;
  request_id: string | null;
  data: unknown;
}
interface Page {
  has_more: boolean;
  data: Item[];
}

/** A template created and changed twice: three events of one stream, each from its own request. */
async function aTemplate(name: string) {
  const created = await file.app.inject({
    method: "POST",
    url: "/templates",
    headers: { ...file.admin.headers, "content-type": "application/json" },
    payload: JSON.stringify({ name, html: "<p>one</p>" }),
  });
  const id = created.json<{ id: string }>().id;
  for (const html of ["<p>two</p>", "<p>three</p>"]) expect((await call("PATCH", `/templates/${id}`, { html })).status).toBe(200);
  return { id, requestId: String(created.headers["x-request-id"]) };
}

describe("GET /audit/resources/:id", () => {
  it("lists the events naming a resource, newest first, with their metadata and data", async () => {
    const { id, requestId } = await aTemplate("timeline");
    const res = await call("GET", `/audit/resources/${id}`);
    expect(res.status).toBe(200);
    const page = res.body as Page;
    expect(page.data.map((e) => [e.type, e.revision])).toEqual([
      ["TemplateUpdated", 2],
      ["TemplateUpdated", 1],
      ["TemplateCreated", 0],
    ]);
    expect(page.data[2]).toMatchObject({
      stream: `template-${id}`,
      actor: `api:${file.admin.id}`,
      request_id: requestId,
      correlation_id: requestId,
      data: { templateId: id, name: "timeline" },
    });
    expect(Object.keys(page.data[0]!).sort()).toEqual(
      [
        "actor",
        "causation_id",
        "correlation_id",
        "created_at",
        "data",
        "id",
        "occurred_at",
        "request_id",
        "revision",
        "stream",
        "type",
      ].sort(),
    );
  });

  it("finds the events a request caused by its request id", async () => {
    const { id, requestId } = await aTemplate("by request");
    const page = (await call("GET", `/audit/resources/${requestId}`)).body as Page;
    expect(page.data.map((e) => [e.stream, e.type])).toEqual([[`template-${id}`, "TemplateCreated"]]);
  });

  it("pages with limit, after and before like every list", async () => {
    const { id } = await aTemplate("paged");
    const first = (await call("GET", `/audit/resources/${id}?limit=2`)).body as Page;
    expect(first.has_more).toBe(true);
    expect(first.data.map((e) => e.revision)).toEqual([2, 1]);
    const second = (await call("GET", `/audit/resources/${id}?limit=2&after=${first.data[1]!.id}`)).body as Page;
    expect(second).toMatchObject({ has_more: false });
    expect(second.data.map((e) => e.revision)).toEqual([0]);
    const back = (await call("GET", `/audit/resources/${id}?limit=1&before=${second.data[0]!.id}`)).body as Page;
    expect(back.data.map((e) => e.revision)).toEqual([1]);
    expect(back.has_more).toBe(true);
  });

  it("shows a team only its own events: another team's resource is a 404", async () => {
    const { id } = await aTemplate("private");
    expect(await call("GET", `/audit/resources/${id}`, undefined, file.other)).toEqual(
      wireError(404, "not_found", "No event of this team names this id"),
    );
    expect(await call("GET", `/audit/streams/template-${id}`, undefined, file.other)).toEqual(
      wireError(404, "not_found", "Stream not found"),
    );
  });

  it("answers 404 for an id nothing names", async () => {
    expect(await call("GET", "/audit/resources/00000000-0000-4000-8000-000000000000")).toEqual(
      wireError(404, "not_found", "No event of this team names this id"),
    );
  });

  it("finds a contact by its address until it is erased, and by its id after, without what the contact held", async () => {
    const email = `audited-${Date.now()}@example.com`;
    const created = await call("POST", "/contacts", { email, first_name: "Ada" });
    const contactId = (created.body as { id: string }).id;
    const byAddress = (await call("GET", `/audit/resources/${email.toUpperCase()}`)).body as Page;
    expect(byAddress.data.map((e) => e.stream)).toEqual([`contact-${contactId}`]);

    expect((await call("DELETE", `/contacts/${contactId}`)).status).toBe(200);
    expect((await call("GET", `/audit/resources/${email}`)).status).toBe(404);
    const byId = (await call("GET", `/audit/resources/${contactId}`)).body as Page;
    const streams = byId.data.map((e) => [e.stream, e.type, e.data === null]);
    expect(streams).toContainEqual([`contact-${contactId}`, "ContactCreated", true]);
    expect(streams).toContainEqual([`contacterasure-${contactId}`, "ContactErased", false]);
    expect(JSON.stringify(byId.data)).not.toContain(email);
  });

  it("refuses bad input naming the field", async () => {
    const id = "00000000-0000-4000-8000-000000000000";
    const limit = await call("GET", `/audit/resources/${id}?limit=0`);
    expect(limit.status).toBe(422);
    expect(limit.body.message).toContain("`limit`");
    const after = await call("GET", `/audit/resources/${id}?after=nope`);
    expect(after.status).toBe(422);
    expect(after.body.message).toContain("after");
    const stream = await call("GET", "/audit/streams/NOT%20A%20STREAM");
    expect(stream.status).toBe(422);
    expect(stream.body.message).toContain("stream");
  });

  it("is for full-access keys: a sending-access key is refused", async () => {
    const sending = await file.testServices.aKey("audit-team", { permission: "sending_access" });
    const res = await call("GET", "/audit/resources/00000000-0000-4000-8000-000000000000", undefined, sending);
    expect(res).toEqual(wireError(401, "restricted_api_key", "This API key is restricted to only send emails."));
  });
});

describe("GET /audit/streams/:stream", () => {
  it("lists a stream's events newest first and pages them", async () => {
    const { id } = await aTemplate("stream");
    const all = (await call("GET", `/audit/streams/template-${id}`)).body as Page;
    expect(all).toMatchObject({ has_more: false });
    expect(all.data.map((e) => e.revision)).toEqual([2, 1, 0]);
    const first = (await call("GET", `/audit/streams/template-${id}?limit=1`)).body as Page;
    expect(first.has_more).toBe(true);
    const next = (await call("GET", `/audit/streams/template-${id}?limit=5&after=${first.data[0]!.id}`)).body as Page;
    expect(next.data.map((e) => e.revision)).toEqual([1, 0]);
    expect(next.has_more).toBe(false);
    const before = (await call("GET", `/audit/streams/template-${id}?before=${next.data[1]!.id}`)).body as Page;
    expect(before.data.map((e) => e.revision)).toEqual([2, 1]);
    expect(await call("GET", `/audit/streams/template-${id}?after=00000000-0000-4000-8000-000000000000`)).toMatchObject({ status: 422 });
  });

  it("lists only the events of the types asked for, and refuses a malformed type", async () => {
    const { id } = await aTemplate("types");
    const created = (await call("GET", `/audit/streams/template-${id}?type=TemplateCreated,NoSuchEvent`)).body as Page;
    expect(created).toMatchObject({ has_more: false, data: [{ revision: 0, type: "TemplateCreated" }] });
    expect((await call("GET", `/audit/streams/template-${id}?type=NoSuchEvent`)).body).toMatchObject({ has_more: false, data: [] });
    const bad = await call("GET", `/audit/streams/template-${id}?type=Template%20Created`);
    expect(bad.status).toBe(422);
    expect(JSON.stringify(bad.body)).toContain("`type`");
  });

  it("answers 404 for a stream with no events", async () => {
    expect(await call("GET", "/audit/streams/template-00000000-0000-4000-8000-000000000000")).toEqual(
      wireError(404, "not_found", "Stream not found"),
    );
  });
});
