import { describe, expect, it } from "vitest";
import { newId } from "@tidings/core";
import { apiTestFile } from "../testing/apiTestFile.js";

const file = apiTestFile("domains");
const { call } = file;
let counter = 0;
const uniqueName = () => `d${++counter}-${newId().slice(0, 8)}.example.com`;
const timestamp = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}\.\d{6}\+00$/;

describe("POST /domains", () => {
  it("answers 201 with the domain, its records not_started, and GET shows the same", async () => {
    const name = uniqueName();
    const res = await call("POST", "/domains", { name: name.toUpperCase() });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      object: "domain",
      name,
      status: "not_started",
      region: "us-east-1",
      tls: "opportunistic",
      capabilities: { sending: "enabled", receiving: "disabled" },
      open_tracking: false,
      click_tracking: false,
      tracking_subdomain: "links",
      custom_return_path: "send",
    });
    expect(res.body.created_at).toMatch(timestamp);
    expect(res.body.records.map((r: { record: string; type: string; name: string }) => `${r.record} ${r.type} ${r.name}`)).toEqual([
      `DKIM TXT tidings._domainkey.${name}`,
      `SPF MX send.${name}`,
      `SPF TXT send.${name}`,
    ]);
    // Typed clients know only the record kinds of Resend's document; the DMARC advice stands beside them.
    expect(res.body.recommended_records).toEqual([
      { record: "DMARC", type: "TXT", name: `_dmarc.${name}`, ttl: "Auto", status: "not_started", value: "v=DMARC1; p=none;" },
    ]);
    expect(res.body.records.every((r: { status: string; ttl: string }) => r.status === "not_started" && r.ttl === "Auto")).toBe(true);
    expect(res.body.records[1]).toMatchObject({ priority: 10, value: "localhost" });
    expect(res.body.records[0]).not.toHaveProperty("priority");
    const got = await call("GET", `/domains/${res.body.id}`);
    expect(got).toEqual({ status: 200, body: res.body });
  });

  it("stores an IDN as punycode", async () => {
    const res = await call("POST", "/domains", { name: `bücher-${newId().slice(0, 6)}.example` });
    expect(res.status).toBe(201);
    expect(res.body.name).toMatch(/^xn--/);
  });

  it.each([
    [{}, 422, "missing_required_field", /`name`/],
    [{ name: "not a domain" }, 422, "validation_error", /`name`/],
    [{ name: 42 }, 422, "validation_error", /`name`/],
    [{ name: "x.example.com", region: "us-west-2" }, 422, "invalid_region", /`region`/],
    [{ name: "x.example.com", tls: "always" }, 422, "validation_error", /`tls`/],
    [{ name: "x.example.com", capabilities: { sending: "disabled" } }, 422, "validation_error", /`capabilities`/],
    [{ name: "x.example.com", capabilities: { receiving: "yes" } }, 422, "validation_error", /`capabilities.receiving`/],
    [{ name: "x.example.com", capabilities: "enabled" }, 422, "validation_error", /`capabilities`/],
    [{ name: "x.example.com", open_tracking: "yes" }, 422, "validation_error", /`open_tracking`/],
    [{ name: "x.example.com", click_tracking: 1 }, 422, "validation_error", /`click_tracking`/],
    [{ name: "x.example.com", tracking_subdomain: "a.b" }, 422, "validation_error", /`tracking_subdomain`/],
    [{ name: "x.example.com", custom_return_path: "no_underscores" }, 422, "validation_error", /`custom_return_path`/],
  ])("refuses %j naming the field", async (body, status, name, message) => {
    const res = await call("POST", "/domains", body);
    expect(res).toMatchObject({ status, body: { statusCode: status, name } });
    expect(res.body.message).toMatch(message);
  });

  it("refuses a name another team holds with 403, pointing at claims; and the same team's again", async () => {
    const name = uniqueName();
    expect((await call("POST", "/domains", { name })).status).toBe(201);
    const taken = await call("POST", "/domains", { name }, file.other);
    expect(taken).toMatchObject({ status: 403, body: { statusCode: 403, name: "validation_error" } });
    expect(taken.body.message).toMatch(/another team.*claim/);
    const again = await call("POST", "/domains", { name });
    expect(again).toMatchObject({ status: 403, body: { name: "validation_error", message: expect.stringMatching(/your team/) } });
  });

  it("frees the name when the domain is deleted", async () => {
    const name = uniqueName();
    const first = await call("POST", "/domains", { name });
    expect(await call("DELETE", `/domains/${first.body.id}`)).toEqual({
      status: 200,
      body: { object: "domain", id: first.body.id, deleted: true },
    });
    expect((await call("GET", `/domains/${first.body.id}`)).status).toBe(404);
    expect((await call("POST", "/domains", { name }, file.other)).status).toBe(201);
  });
});

describe("PATCH /domains/:id", () => {
  it("changes only the fields given, and refuses to disable the last capability", async () => {
    const { body } = await call("POST", "/domains", { name: uniqueName(), capabilities: { receiving: "enabled" } });
    expect(await call("PATCH", `/domains/${body.id}`, { click_tracking: true, tracking_subdomain: "t" })).toEqual({
      status: 200,
      body: { object: "domain", id: body.id },
    });
    expect(await call("PATCH", `/domains/${body.id}`, { capabilities: { sending: "disabled" } })).toMatchObject({ status: 200 });
    const last = await call("PATCH", `/domains/${body.id}`, { capabilities: { receiving: "disabled" } });
    expect(last).toMatchObject({ status: 422, body: { name: "validation_error", message: expect.stringMatching(/`capabilities`/) } });
    const got = (await call("GET", `/domains/${body.id}`)).body;
    expect(got).toMatchObject({
      click_tracking: true,
      open_tracking: false,
      tracking_subdomain: "t",
      tls: "opportunistic",
      capabilities: { sending: "disabled", receiving: "enabled" },
    });
    expect(got.records.map((r: { record: string }) => r.record)).toEqual(["DKIM", "SPF", "SPF", "Receiving", "Tracking"]);
    expect(got.recommended_records.map((r: { record: string }) => r.record)).toEqual(["DMARC"]);
  });

  it.each([
    [{ tls: "sometimes" }, /`tls`/],
    [{ tracking_subdomain: "" }, /`tracking_subdomain`/],
    [{ open_tracking: null }, /`open_tracking`/],
    [{ capabilities: { sending: "off" } }, /`capabilities.sending`/],
  ])("refuses %j naming the field", async (patch, message) => {
    const { body } = await call("POST", "/domains", { name: uniqueName() });
    const res = await call("PATCH", `/domains/${body.id}`, patch);
    expect(res).toMatchObject({ status: 422, body: { name: "validation_error" } });
    expect(res.body.message).toMatch(message);
  });

  it("hides another team's domain", async () => {
    const { body } = await call("POST", "/domains", { name: uniqueName() });
    expect(await call("PATCH", `/domains/${body.id}`, { tls: "enforced" }, file.other)).toMatchObject({
      status: 404,
      body: { name: "not_found", message: "Domain not found" },
    });
    expect((await call("GET", `/domains/${body.id}`, undefined, file.other)).status).toBe(404);
    expect((await call("DELETE", `/domains/${body.id}`, undefined, file.other)).status).toBe(404);
    expect((await call("POST", `/domains/${body.id}/verify`, undefined, file.other)).status).toBe(404);
  });
});

describe("GET /domains", () => {
  it("lists the team's domains newest first without records, and pages", async () => {
    const names = [uniqueName(), uniqueName()];
    for (const name of names) await call("POST", "/domains", { name }, file.other);
    const all = await call("GET", "/domains", undefined, file.other);
    expect(all.body).toMatchObject({ object: "list", has_more: false });
    expect(all.body.data[0].name).toBe(names[1]);
    expect(all.body.data[0]).not.toHaveProperty("records");
    const page = await call("GET", "/domains?limit=1", undefined, file.other);
    expect(page.body).toMatchObject({ has_more: true, data: [{ name: names[1] }] });
  });
});

describe("POST /domains/:id/verify", () => {
  it("puts the domain and its records in pending", async () => {
    const { body } = await call("POST", "/domains", { name: uniqueName() });
    expect(await call("POST", `/domains/${body.id}/verify`)).toEqual({ status: 200, body: { object: "domain", id: body.id } });
    const got = (await call("GET", `/domains/${body.id}`)).body;
    expect(got.status).toBe("pending");
    expect(got.records.every((r: { status: string }) => r.status === "pending")).toBe(true);
  });
});
