import { describe, expect, it } from "vitest";
import { reserve } from "@tidings/commands";
import { renderTemplateForSend, templateForSend } from "../lookups/templateForSend.js";
import { templateAliasStream } from "../lookups/templateStreams.js";
import { apiTestFile } from "../testing/apiTestFile.js";
import type { TestKey } from "../testing/testServices.js";

const file = apiTestFile("templates");
const { call } = file;

let aliasCounter = 0;
const uniqueAlias = (base: string) => `${base}-${++aliasCounter}`;
const welcome = (overrides: Record<string, unknown> = {}) => ({
  name: "Welcome",
  html: "<p>Hi {{{NAME}}}, you have {{{COUNT}}} messages</p>",
  subject: "Hello {{{NAME}}}",
  from: "Acme <hello@acme.test>",
  variables: [
    { key: "NAME", type: "string", fallback_value: "there" },
    { key: "COUNT", type: "number" },
  ],
  ...overrides,
});
const create = async (body: unknown, key: TestKey = file.admin) => call("POST", "/templates", body, key);
const timestamp = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}\.\d{6}\+00$/;

describe("POST /templates", () => {
  it("answers 201 with the id, and GET shows a draft in the docs/wire-compatibility.md §6.12 shape", async () => {
    const alias = uniqueAlias("welcome");
    const res = await create(welcome({ alias, reply_to: "help@acme.test" }));
    expect(res).toMatchObject({ status: 201, body: { object: "template", id: expect.any(String) } });
    expect(Object.keys(res.body).sort()).toEqual(["id", "object"]);
    const got = await call("GET", `/templates/${res.body.id}`);
    expect(got.status).toBe(200);
    expect(Object.keys(got.body).sort()).toEqual(
      [
        "object",
        "id",
        "name",
        "alias",
        "subject",
        "html",
        "text",
        "from",
        "reply_to",
        "variables",
        "status",
        "published_at",
        "created_at",
        "updated_at",
        "has_unpublished_versions",
        "current_version_id",
      ].sort(),
    );
    expect(got.body).toMatchObject({
      object: "template",
      id: res.body.id,
      name: "Welcome",
      alias,
      subject: "Hello {{{NAME}}}",
      text: null,
      from: "Acme <hello@acme.test>",
      reply_to: ["help@acme.test"],
      status: "draft",
      published_at: null,
      has_unpublished_versions: false,
      current_version_id: expect.stringMatching(/^[0-9a-f-]{36}$/),
    });
    expect(got.body.created_at).toMatch(timestamp);
    expect(got.body.variables).toEqual([
      { key: "NAME", type: "string", fallback_value: "there", created_at: got.body.created_at, updated_at: got.body.updated_at },
      { key: "COUNT", type: "number", fallback_value: null, created_at: got.body.created_at, updated_at: got.body.updated_at },
    ]);
  });

  it("refuses a missing name or html, naming the field", async () => {
    expect(await create({ html: "<p/>" })).toMatchObject({
      status: 422,
      body: { name: "missing_required_field", message: "Missing `name` field." },
    });
    expect(await create({ name: "x" })).toMatchObject({
      status: 422,
      body: { name: "missing_required_field", message: "Missing `html` field." },
    });
  });

  it("refuses more than 50 variables, a fallback of the wrong type, a duplicate key and an unknown type", async () => {
    const many = Array.from({ length: 51 }, (_, i) => ({ key: `V${i}`, type: "string" }));
    expect((await create(welcome({ variables: many }))).body).toMatchObject({
      statusCode: 422,
      name: "validation_error",
      message: expect.stringContaining("at most 50"),
    });
    const wrongType = await create(welcome({ variables: [{ key: "N", type: "number", fallback_value: "three" }] }));
    expect(wrongType.body).toMatchObject({ statusCode: 422, name: "validation_error", message: expect.stringContaining("fallback_value") });
    const twice = await create(
      welcome({
        variables: [
          { key: "A", type: "string" },
          { key: "A", type: "string" },
        ],
      }),
    );
    expect(twice.body.message).toContain("declared twice");
    const unknown = await create(welcome({ variables: [{ key: "A", type: "boolean" }] }));
    expect(unknown.body).toMatchObject({
      statusCode: 422,
      name: "validation_error",
      message: expect.stringContaining("`variables[0].type`"),
    });
  });

  it("refuses a from that is not a mailbox with invalid_from_address", async () =>
    expect((await create(welcome({ from: "not an address" }))).body).toMatchObject({ statusCode: 422, name: "invalid_from_address" }));
});

describe("template aliases", () => {
  it("addresses a template by alias for reads and writes", async () => {
    const alias = uniqueAlias("by-alias");
    const { body } = await create(welcome({ alias }));
    expect((await call("GET", `/templates/${alias}`)).body.id).toBe(body.id);
    expect((await call("PATCH", `/templates/${alias}`, { name: "Renamed" })).body).toEqual({ object: "template", id: body.id });
    expect((await call("POST", `/templates/${alias}/publish`)).body).toEqual({ object: "template", id: body.id });
    expect((await call("GET", `/templates/${alias}`)).body).toMatchObject({ name: "Renamed", status: "published" });
  });

  it("refuses a second template with a taken alias, and another team may use it", async () => {
    const alias = uniqueAlias("taken");
    expect((await create(welcome({ alias }))).status).toBe(201);
    expect(await create(welcome({ alias }))).toMatchObject({
      status: 422,
      body: { name: "validation_error", message: expect.stringContaining("`alias`") },
    });
    expect((await create(welcome({ alias }), file.other)).status).toBe(201);
  });

  it("lets exactly one of two concurrent creates claim an alias", async () => {
    const alias = uniqueAlias("race");
    const results = await Promise.all([create(welcome({ alias })), create(welcome({ alias }))]);
    expect(results.map((r) => r.status).sort()).toEqual([201, 422]);
    const winner = results.find((r) => r.status === 201)!.body.id;
    expect((await call("GET", `/templates/${alias}`)).body.id).toBe(winner);
  });

  it("frees an alias on delete and on change, for another template to take", async () => {
    const alias = uniqueAlias("freed");
    const first = await create(welcome({ alias }));
    expect((await call("DELETE", `/templates/${alias}`)).body).toEqual({ object: "template", id: first.body.id, deleted: true });
    const second = await create(welcome({ alias }));
    expect(second.status).toBe(201);
    const renamed = uniqueAlias("renamed");
    expect((await call("PATCH", `/templates/${second.body.id}`, { alias: renamed })).status).toBe(200);
    const third = await create(welcome({ alias }));
    expect(third.status).toBe(201);
    expect((await call("GET", `/templates/${alias}`)).body.id).toBe(third.body.id);
    expect((await call("GET", `/templates/${renamed}`)).body.id).toBe(second.body.id);
  });
  it("takes over a claim left by a process that died before releasing it", async () => {
    const [held, left] = [uniqueAlias("held"), uniqueAlias("left")];
    const { body } = await create(welcome({ alias: held }));
    // As if an alias change of this template had claimed `left` and died before recording the edit.
    await reserve(file.testServices.store, templateAliasStream(file.admin.teamId, left), body.id, {});
    const taker = await create(welcome({ alias: left }));
    expect(taker.status).toBe(201);
    expect((await call("GET", `/templates/${left}`)).body.id).toBe(taker.body.id);
    expect((await call("GET", `/templates/${held}`)).body.id).toBe(body.id);
  });

  it("a refused edit claims no alias and keeps the one it has", async () => {
    const [own, wanted, taken] = [uniqueAlias("own"), uniqueAlias("wanted"), uniqueAlias("taken")];
    const { body } = await create(welcome({ alias: own }));
    await create(welcome({ alias: taken }));
    expect((await call("PATCH", `/templates/${own}`, { alias: wanted, from: "bad" })).body.name).toBe("invalid_from_address");
    expect((await call("PATCH", `/templates/${own}`, { alias: taken })).status).toBe(422);
    expect((await call("GET", `/templates/${own}`)).body).toMatchObject({ id: body.id, alias: own });
    expect((await create(welcome({ alias: wanted }))).status).toBe(201);
  });
});

describe("versions", () => {
  it("publishing sets status and published_at; an edit after it is an unpublished version sends do not use", async () => {
    const { body } = await create(welcome({ subject: "First {{{NAME}}}" }));
    await expect(templateForSend(file.testServices.services, file.admin.teamId, body.id)).rejects.toMatchObject({
      code: "validation_error",
      message: expect.stringContaining("not published"),
    });
    await call("POST", `/templates/${body.id}/publish`);
    const published = (await call("GET", `/templates/${body.id}`)).body;
    expect(published).toMatchObject({ status: "published", has_unpublished_versions: false });
    expect(published.published_at).toMatch(timestamp);

    await call("PATCH", `/templates/${body.id}`, { subject: "Second {{{NAME}}}" });
    const edited = (await call("GET", `/templates/${body.id}`)).body;
    expect(edited).toMatchObject({ status: "published", has_unpublished_versions: true, subject: "Second {{{NAME}}}" });
    expect(edited.current_version_id).not.toBe(published.current_version_id);
    const forSend = await templateForSend(file.testServices.services, file.admin.teamId, body.id);
    expect(forSend).toMatchObject({ templateId: body.id, version: 1, subject: "First {{{NAME}}}" });
    expect(renderTemplateForSend(forSend, { NAME: "<Ada>", COUNT: 2 }).html).toBe("<p>Hi &lt;Ada&gt;, you have 2 messages</p>");
    expect(() => renderTemplateForSend(forSend, {})).toThrow(/`COUNT`/);

    await call("POST", `/templates/${body.id}/publish`);
    expect((await call("GET", `/templates/${body.id}`)).body).toMatchObject({
      has_unpublished_versions: false,
      current_version_id: edited.current_version_id,
    });
    expect(await templateForSend(file.testServices.services, file.admin.teamId, body.id)).toMatchObject({
      version: 2,
      subject: "Second {{{NAME}}}",
    });
  });

  it("a PATCH changes only the fields it names", async () => {
    const { body } = await create(welcome({ text: "" }));
    await call("PATCH", `/templates/${body.id}`, { name: "Only the name" });
    expect((await call("GET", `/templates/${body.id}`)).body).toMatchObject({
      name: "Only the name",
      text: "",
      subject: "Hello {{{NAME}}}",
    });
  });

  it("duplicates into a draft copy without the alias", async () => {
    const { body } = await create(welcome({ alias: uniqueAlias("source") }));
    await call("POST", `/templates/${body.id}/publish`);
    const copy = await call("POST", `/templates/${body.id}/duplicate`);
    expect(copy).toMatchObject({ status: 201, body: { object: "template" } });
    expect((await call("GET", `/templates/${copy.body.id}`)).body).toMatchObject({
      name: "Welcome (copy)",
      alias: null,
      status: "draft",
      html: welcome().html,
    });
  });
});

describe("reads and team boundaries", () => {
  it("lists newest first with cursors, in any query order", async () => {
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push((await create(welcome({ name: `Listed ${i}` }), file.other)).body.id);
    const page = await call("GET", "/templates?limit=2", undefined, file.other);
    expect(page.body).toMatchObject({ object: "list", has_more: true });
    expect(page.body.data.map((d: { id: string }) => d.id)).toEqual([ids[2], ids[1]]);
    expect(Object.keys(page.body.data[0]).sort()).toEqual(["alias", "created_at", "id", "name", "published_at", "status", "updated_at"]);
    const next = await call("GET", `/templates?after=${ids[1]}&limit=1`, undefined, file.other);
    expect(next.body.data.map((d: { id: string }) => d.id)).toEqual([ids[0]]);
    const sdkOrder = await call("GET", `/templates?before=${ids[0]}&limit=1`, undefined, file.other);
    expect(sdkOrder.body.data.map((d: { id: string }) => d.id)).toEqual([ids[1]]);
  });

  it("another team's template is not found, for reads, writes and sends", async () => {
    const { body } = await create(welcome());
    await call("POST", `/templates/${body.id}/publish`);
    for (const [method, url] of [
      ["GET", `/templates/${body.id}`],
      ["PATCH", `/templates/${body.id}`],
      ["DELETE", `/templates/${body.id}`],
      ["POST", `/templates/${body.id}/publish`],
      ["POST", `/templates/${body.id}/duplicate`],
    ] as const) {
      expect(await call(method, url, method === "PATCH" ? { name: "x" } : undefined, file.other)).toMatchObject({
        status: 404,
        body: { name: "not_found", message: "Template not found" },
      });
    }
    await expect(templateForSend(file.testServices.services, file.other.teamId, body.id)).rejects.toMatchObject({
      code: "validation_error",
    });
  });

  it("a deleted template is gone", async () => {
    const { body } = await create(welcome());
    await call("DELETE", `/templates/${body.id}`);
    expect((await call("GET", `/templates/${body.id}`)).status).toBe(404);
    expect((await call("DELETE", `/templates/${body.id}`)).status).toBe(404);
  });
});
