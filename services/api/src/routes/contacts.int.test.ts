import { sql } from "kysely";
import { beforeAll, describe, expect, it } from "vitest";
import { reservationStream } from "@tidings/commands";
import { settledWrites } from "@tidings/postgres";
import { wireError } from "../testing/jsonCalls.js";
import { apiTestFile } from "../testing/apiTestFile.js";
import { contactSearchText, readModels } from "@tidings/projections";

const file = apiTestFile("contacts");
const { call } = file;

beforeAll(async () => {
  expect((await call("POST", "/contact-properties", { key: "company", type: "string", fallback_value: "none" })).status).toBe(201);
  expect((await call("POST", "/contact-properties", { key: "age", type: "number" })).status).toBe(201);
});

const error = wireError;
let n = 0;
const anEmail = (base = "person") => `${base}-${++n}@example.com`;

describe("POST /contacts", () => {
  it("answers 201, and GET by id and by email shows the contact with typed properties", async () => {
    const email = anEmail("Ada");
    const res = await call("POST", "/contacts", { email, first_name: "Ada", properties: { company: "Acme", age: 36 } });
    expect(res).toEqual({ status: 201, body: { object: "contact", id: expect.any(String) } });
    const byId = await call("GET", `/contacts/${res.body.id}`);
    expect(byId.body).toEqual({
      object: "contact",
      id: res.body.id,
      email: email.toLowerCase(),
      first_name: "Ada",
      last_name: null,
      created_at: expect.stringMatching(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}\.\d{6}\+00$/),
      unsubscribed: false,
      properties: { company: { type: "string", value: "Acme" }, age: { type: "number", value: 36 } },
    });
    expect((await call("GET", `/contacts/${email.toUpperCase()}`)).body).toEqual(byId.body);
  });

  it("refuses a second contact with the same email in the team with 409, but not in another team", async () => {
    const email = anEmail();
    expect((await call("POST", "/contacts", { email })).status).toBe(201);
    expect(await call("POST", "/contacts", { email: email.toUpperCase() })).toEqual(
      error(409, "validation_error", /`email`.*already exists/),
    );
    expect((await call("POST", "/contacts", { email }, file.other)).status).toBe(201);
  });

  it("lets exactly one of concurrent creates with one email win", async () => {
    const email = anEmail("race");
    const results = await Promise.all(Array.from({ length: 5 }, () => call("POST", "/contacts", { email })));
    expect(results.map((r) => r.status).sort()).toEqual([201, 409, 409, 409, 409]);
  });

  it("names the field of bad input", async () => {
    expect(await call("POST", "/contacts", {})).toEqual(error(422, "missing_required_field", "Missing `email` field."));
    expect(await call("POST", "/contacts", { email: "nobody" })).toEqual(error(422, "validation_error", /`email`/));
    expect(await call("POST", "/contacts", { email: anEmail(), first_name: "x".repeat(256) })).toEqual(
      error(422, "validation_error", /`first_name`/),
    );
    expect(await call("POST", "/contacts", { email: anEmail(), unsubscribed: "yes" })).toEqual(
      error(422, "validation_error", /`unsubscribed`/),
    );
    expect(await call("POST", "/contacts", { email: anEmail(), properties: { plan: "pro" } })).toEqual(
      error(422, "validation_error", /`properties.plan` is not a contact property/),
    );
    expect(await call("POST", "/contacts", { email: anEmail(), properties: { age: "old" } })).toEqual(
      error(422, "validation_error", "`properties.age` must be a number."),
    );
    expect(await call("POST", "/contacts", { email: anEmail(), properties: { company: true } })).toEqual(
      error(422, "validation_error", "`properties.company` must be a string."),
    );
    expect(await call("POST", "/contacts", { email: anEmail(), segments: [{ id: "00000000-0000-4000-8000-000000000000" }] })).toEqual(
      error(404, "not_found", "Audience not found"),
    );
    expect(
      await call("POST", "/contacts", {
        email: anEmail(),
        topics: [{ id: "00000000-0000-4000-8000-000000000000", subscription: "opt_in" }],
      }),
    ).toEqual(error(404, "not_found", "Topic not found"));
    expect(
      await call("POST", "/contacts", {
        email: anEmail(),
        topics: [{ id: "00000000-0000-4000-8000-000000000000", subscription: "maybe" }],
      }),
    ).toMatchObject({ status: 422, body: { message: /`topics\[0\]\.subscription`|`topics.0.subscription`/ } });
  });

  it("does not see another team's properties", async () => {
    expect(await call("POST", "/contacts", { email: anEmail(), properties: { company: "x" } }, file.other)).toEqual(
      error(422, "validation_error", /`properties.company`/),
    );
  });

  it("leaves no claim behind when the create is refused", async () => {
    const email = anEmail();
    expect((await call("POST", "/contacts", { email, properties: { age: "x" } })).status).toBe(422);
    expect((await call("POST", "/contacts", { email })).status).toBe(201);
  });
});

describe("PATCH /contacts/:idOrEmail", () => {
  it("changes what the body names, and null clears names and property values", async () => {
    const email = anEmail();
    const { body } = await call("POST", "/contacts", { email, first_name: "A", last_name: "B", properties: { company: "Acme", age: 3 } });
    expect(
      await call("PATCH", `/contacts/${email}`, { first_name: null, unsubscribed: true, properties: { company: null, age: 4 } }),
    ).toEqual({
      status: 200,
      body: { object: "contact", id: body.id },
    });
    expect((await call("GET", `/contacts/${body.id}`)).body).toMatchObject({
      first_name: null,
      last_name: "B",
      unsubscribed: true,
      properties: { age: { type: "number", value: 4 } },
    });
    expect((await call("GET", `/contacts/${body.id}`)).body.properties).not.toHaveProperty("company");
  });

  it("refuses a property of the wrong type or unknown, and changes nothing", async () => {
    const { body } = await call("POST", "/contacts", { email: anEmail(), properties: { age: 1 } });
    expect(await call("PATCH", `/contacts/${body.id}`, { unsubscribed: true, properties: { age: "two" } })).toEqual(
      error(422, "validation_error", "`properties.age` must be a number."),
    );
    expect(await call("PATCH", `/contacts/${body.id}`, { properties: { nope: null } })).toEqual(
      error(422, "validation_error", /`properties.nope`/),
    );
    expect((await call("GET", `/contacts/${body.id}`)).body).toMatchObject({
      unsubscribed: false,
      properties: { age: { type: "number", value: 1 } },
    });
  });

  it("does not find an unknown contact or another team's", async () => {
    const { body } = await call("POST", "/contacts", { email: anEmail() });
    expect(await call("PATCH", `/contacts/${body.id}`, { unsubscribed: true }, file.other)).toEqual(
      error(404, "not_found", "Contact not found"),
    );
    expect(await call("PATCH", "/contacts/nobody@example.com", { unsubscribed: true })).toEqual(
      error(404, "not_found", "Contact not found"),
    );
    expect(await call("GET", `/contacts/${body.id}`, undefined, file.other)).toEqual(error(404, "not_found", "Contact not found"));
  });
});

describe("DELETE /contacts/:idOrEmail", () => {
  it("echoes the path value, and is idempotent", async () => {
    const email = anEmail();
    await call("POST", "/contacts", { email });
    expect(await call("DELETE", `/contacts/${email}`)).toEqual({ status: 200, body: { object: "contact", contact: email, deleted: true } });
    expect(await call("DELETE", `/contacts/${email}`)).toEqual({ status: 200, body: { object: "contact", contact: email, deleted: true } });
    expect(await call("GET", `/contacts/${email}`)).toEqual(error(404, "not_found", "Contact not found"));
  });

  it("erases the person from the read models and the event store; a replay shows only that a contact was erased", async () => {
    const email = anEmail("Grace.Hopper");
    const { body: segment } = await call("POST", "/segments", { name: "Erasure" });
    const { body: topic } = await call("POST", "/topics", { name: "Erasure", default_subscription: "opt_in" });
    const { body } = await call("POST", "/contacts", {
      email,
      first_name: "Grace Brewster",
      last_name: "Hopper Jr",
      properties: { company: "Navy Yard" },
      segments: [{ id: segment.id }],
      topics: [{ id: topic.id, subscription: "opt_out" }],
    });
    await call("PATCH", `/contacts/${body.id}`, { last_name: "Murray Hopper" });
    expect((await call("DELETE", `/contacts/${body.id}`)).status).toBe(200);

    for (const [table, column] of [
      ["contacts", "id"],
      ["contact_segments", "contact_id"],
      ["contact_topics", "contact_id"],
    ] as const)
      expect(await readModels(file.testServices.test.database).selectFrom(table).selectAll().where(column, "=", body.id).execute()).toEqual(
        [],
      );
    await settledWrites(file.testServices.test.database);
    // Page through $all: a read returns at most one batch.
    // The events as stored, sealed: what anyone with the database but without the keys could read.
    const { storedEvents } = file.testServices;
    const all: Awaited<ReturnType<typeof storedEvents.readAll>> = [];
    for (let page = await storedEvents.readAll(); page.length > 0; page = await storedEvents.readAll({ after: page.at(-1)!.position }))
      all.push(...page);
    // Each canary holds a "." or a space, which no sealed value's base64url can: a bare /navy/i once matched
    // a ciphertext of another test's contact by chance.
    const mentions = all.filter((e) =>
      JSON.stringify([e.data, e.metadata, e.streamId]).match(/grace\.hopper|grace brewster|hopper jr|murray hopper|navy yard/i),
    );
    expect(mentions).toEqual([]);
    const aboutContact = all.filter((e) => e.streamId.includes(body.id) || JSON.stringify(e.data).includes(body.id));
    // The store's own erasure record of the contact's stream keeps its events' hashes, not their content.
    expect(aboutContact.map((e) => e.type)).toEqual(["SubjectErased", "ContactErased", "StreamErased"]);
    expect(Object.keys(aboutContact[2]!.data as object).sort()).toEqual(["events", "stream"]);
    expect(aboutContact[0]!.data).toMatchObject({ contactId: body.id, subjectKeys: 1, orderedBy: expect.any(String) });
    expect(aboutContact[1]!.data).toEqual({
      contactId: body.id,
      teamId: file.admin.teamId,
      segmentIds: [segment.id],
      topicIds: [topic.id],
      erasedAt: expect.any(String),
    });
    expect(await file.testServices.store.readStream(reservationStream(file.admin.teamId, "contact-email", email.toLowerCase()))).toEqual(
      [],
    );
    // The address is free again.
    expect((await call("POST", "/contacts", { email })).status).toBe(201);
  });

  it("does not delete another team's contact", async () => {
    const { body } = await call("POST", "/contacts", { email: anEmail() });
    expect((await call("DELETE", `/contacts/${body.id}`, undefined, file.other)).status).toBe(200);
    expect((await call("GET", `/contacts/${body.id}`)).status).toBe(200);
  });
});

describe("GET /contacts", () => {
  it("lists every contact without a limit, pages with one, and filters by segment", async () => {
    const { body: segment } = await call("POST", "/segments", { name: "Listed" });
    const ids: string[] = [];
    for (let i = 0; i < 3; i++)
      ids.push((await call("POST", "/contacts", { email: anEmail("listed"), segments: [{ id: segment.id }] })).body.id);
    const inSegment = await call("GET", `/contacts?segment_id=${segment.id}`);
    expect(inSegment.body).toEqual({ object: "list", has_more: false, data: ids.reverse().map((id) => expect.objectContaining({ id })) });
    expect(Object.keys(inSegment.body.data[0]).sort()).toEqual(["created_at", "email", "first_name", "id", "last_name", "unsubscribed"]);
    const page = await call("GET", `/segments/${segment.id}/contacts?limit=2`);
    expect(page.body).toMatchObject({ has_more: true, data: [{ id: ids[0] }, { id: ids[1] }] });
    expect((await call("GET", `/segments/${segment.id}/contacts?limit=2&after=${ids[1]}`)).body).toMatchObject({
      has_more: false,
      data: [{ id: ids[2] }],
    });
    const all = await call("GET", "/contacts");
    expect(all.body.data.length).toBeGreaterThan(3);
    expect(await call("GET", "/contacts?limit=0")).toEqual(error(422, "validation_error", /`limit`/));
    expect(await call("GET", "/contacts?segment_id=nope")).toEqual(error(422, "validation_error", /`segment_id`/));
  });
});

describe("GET /contacts?search (a Tidings extension)", () => {
  it("finds the contacts whose email or name contains the text, in any case, paged, and only the team's", async () => {
    const hedy = (await call("POST", "/contacts", { email: anEmail("hedy.lamarr"), first_name: "Hedy", last_name: "Lamarr" })).body.id;
    const hedwig = (await call("POST", "/contacts", { email: anEmail("hedwig"), last_name: "Owl" })).body.id;
    const percent = (await call("POST", "/contacts", { email: anEmail("sale"), first_name: "50% off" })).body.id;
    await call("POST", "/contacts", { email: anEmail("hedy.other") }, file.other);
    const ids = async (query: string) => (await call("GET", `/contacts?${query}`)).body.data.map((c: { id: string }) => c.id);
    expect(await ids("search=HED")).toEqual([hedwig, hedy]);
    expect(await ids("search=hedy%20lamarr")).toEqual([hedy]);
    expect(await ids(`search=${encodeURIComponent("%")}`)).toEqual([percent]);
    expect(await ids(`search=${encodeURIComponent("_")}`)).toEqual([]);
    expect((await call("GET", "/contacts?search=hed&limit=1")).body).toMatchObject({ has_more: true, data: [{ id: hedwig }] });
    expect(await ids(`search=hed&limit=1&after=${hedwig}`)).toEqual([hedy]);
    expect(await call("GET", `/contacts?search=${"x".repeat(321)}`)).toEqual(error(422, "validation_error", /`search`/));
  });

  it("can be answered from the trigram index, as the query's expression is the index's", async () => {
    const plan = await readModels(file.testServices.test.database)
      .transaction()
      .execute(async (trx) => {
        // A few test rows make a sequential scan the cheaper plan; turned off, the index shows whether it fits.
        await sql`SET LOCAL enable_seqscan = off`.execute(trx);
        const query = trx.selectFrom("contacts as c").select("c.id").where(sql.raw<string>(contactSearchText), "ilike", "%hedy%").compile();
        return (await sql.raw<{ "QUERY PLAN": string }>(`EXPLAIN ${query.sql.replace("$1", "'%hedy%'")}`).execute(trx)).rows;
      });
    expect(plan.map((row) => row["QUERY PLAN"]).join("\n")).toMatch(/Index Scan on contacts\S*_search/);
  });
});

describe("legacy /audiences/:id/contacts", () => {
  it("creates into the audience, lists it, and gets, updates and deletes by id or email", async () => {
    const { body: audience } = await call("POST", "/audiences", { name: "Legacy" });
    expect(audience).toMatchObject({ object: "audience", name: "Legacy" });
    const email = anEmail("legacy");
    const created = await call("POST", `/audiences/${audience.id}/contacts`, { email, first_name: "Leg" });
    expect(created).toEqual({ status: 201, body: { object: "contact", id: expect.any(String) } });
    expect((await call("GET", `/audiences/${audience.id}/contacts`)).body.data).toEqual([expect.objectContaining({ id: created.body.id })]);
    expect((await call("GET", `/audiences/${audience.id}/contacts/${email}`)).body).toMatchObject({
      id: created.body.id,
      first_name: "Leg",
    });
    expect((await call("PATCH", `/audiences/${audience.id}/contacts/${created.body.id}`, { unsubscribed: true })).status).toBe(200);
    expect((await call("GET", `/contacts/${created.body.id}`)).body.unsubscribed).toBe(true);
    expect(await call("DELETE", `/audiences/${audience.id}/contacts/${email}`)).toEqual({
      status: 200,
      body: { object: "contact", contact: email, deleted: true },
    });
    expect((await call("GET", `/audiences/${audience.id}/contacts`)).body.data).toEqual([]);
    expect(await call("POST", `/audiences/00000000-0000-4000-8000-000000000000/contacts`, { email: anEmail() })).toEqual(
      error(404, "not_found", "Audience not found"),
    );
  });
});
