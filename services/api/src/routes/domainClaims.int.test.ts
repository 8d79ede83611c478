import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig, newId } from "@tidings/core";
import { startDnsResponder, type DnsResponder } from "@tidings/testkit";
import type { ApiInstance } from "../app.js";
import { jsonCaller, type JsonMethod } from "../testing/jsonCalls.js";
import { createTestServices, testApiSettings, type TestKey, type TestServices } from "../testing/testServices.js";

let dns: DnsResponder;
let t: TestServices;
let app: ApiInstance;
let holder: TestKey;
let claimant: TestKey;

beforeAll(async () => {
  dns = await startDnsResponder({});
  t = await createTestServices(loadConfig({ ...testApiSettings, DNS_SERVERS: dns.address, TIDINGS_ALLOW_UNVERIFIED_FROM: "true" }));
  app = await t.app();
  holder = await t.aKey("claims-holder");
  claimant = await t.aKey("claims-claimant");
});
afterAll(async () => {
  await t?.dispose();
  await dns?.close();
});

const call = (method: JsonMethod, url: string, key: TestKey, payload?: unknown, on: ApiInstance = app) =>
  jsonCaller(
    () => on,
    () => key,
  )(method, url, payload);
const uniqueName = () => `claimed-${newId().slice(0, 8)}.example.test`;
const publish = (record: { name: string; value: string }) => ((dns.zone[record.name] ??= {}).TXT ??= []).push(record.value);

describe("domain claims", () => {
  it("takes a domain over: failed without the record, blocked by scheduled mail, then completed with a fresh key", async () => {
    const name = uniqueName();
    const held = (await call("POST", "/domains", holder, { name })).body;
    const claim = await call("POST", "/domains/claim", claimant, { name, region: "eu-west-1" });
    expect(claim.status).toBe(201);
    expect(claim.body).toMatchObject({
      object: "domain_claim",
      name,
      status: "pending",
      region: "eu-west-1",
      record: { type: "TXT", name, value: expect.stringMatching(/^tidings-domain-verification=\w{32}$/), ttl: "Auto" },
      blocked_reason: null,
      failure_reason: null,
    });
    const domainId = claim.body.domain_id;
    expect(await call("GET", `/domains/${domainId}/claim`, claimant)).toEqual({ status: 200, body: claim.body });

    const missing = await call("POST", `/domains/${domainId}/claim/verify`, claimant);
    expect(missing.body).toMatchObject({ status: "failed", failure_reason: expect.stringContaining("No TXT record") });

    publish(claim.body.record);
    const scheduled = await call("POST", "/emails", holder, {
      from: `hello@${name}`,
      to: "a@example.test",
      subject: "Later",
      html: "<p>x</p>",
      scheduled_at: "in 1 hour",
    });
    expect(scheduled.status).toBe(200);
    const blocked = await call("POST", `/domains/${domainId}/claim/verify`, claimant);
    expect(blocked.body).toMatchObject({ status: "blocked", blocked_reason: "pending_scheduled_emails", failure_reason: null });

    await app.inject({ method: "POST", url: `/emails/${scheduled.body.id}/cancel`, headers: holder.headers });
    const done = await call("POST", `/domains/${domainId}/claim/verify`, claimant);
    expect(done.body).toMatchObject({ status: "completed", blocked_reason: null });

    expect((await call("GET", `/domains/${held.id}`, holder)).status).toBe(404);
    const taken = await call("GET", `/domains/${domainId}`, claimant);
    expect(taken.body).toMatchObject({ name, region: "eu-west-1", status: "not_started" });
    expect(taken.body.records[0].value).not.toBe(held.records[0].value);
    const deleted = (await t.store.readStream(`domain-${held.id}`)).at(-1)!;
    expect(deleted).toMatchObject({ type: "DomainDeleted", data: { claimedBy: domainId }, metadata: { teamId: holder.teamId } });
    expect((await call("POST", "/domains", holder, { name })).status).toBe(403);
  });

  it("is blocked by mail scheduled before the verify, while the emails read model is still behind it", async () => {
    const name = uniqueName();
    await call("POST", "/domains", holder, { name });
    const claim = (await call("POST", "/domains/claim", claimant, { name })).body;
    publish(claim.record);

    const release = t.holdProjections();
    // The send answers once its read-your-writes wait gives up, as it does on a loaded machine.
    const hurried = await t.app({ services: { ...t.services, waitFor: (position) => t.projections.waitFor(position, 50) } });
    const email = { from: `hello@${name}`, to: "a@example.test", subject: "Later", html: "<p>x</p>", scheduled_at: "in 1 hour" };
    const scheduled = await call("POST", "/emails", holder, email, hurried);
    expect(scheduled.status).toBe(200);
    expect((await call("GET", `/emails/${scheduled.body.id}`, holder)).status).toBe(404);

    // The projections go on once the api waits for them, or once the verify has answered without waiting.
    const waiting = { ...t.services };
    waiting.waitFor = (position) => (release(), t.services.waitFor(position));
    waiting.catchUp = (projections) => (release(), t.services.catchUp(projections));
    const verifier = await t.app({ services: waiting });
    const verified = await call("POST", `/domains/${claim.domain_id}/claim/verify`, claimant, undefined, verifier).finally(release);
    expect(verified.body).toMatchObject({ status: "blocked", blocked_reason: "pending_scheduled_emails" });
  });

  it("refuses to decide with 503 while the read models cannot catch up, and records no check", async () => {
    const name = uniqueName();
    await call("POST", "/domains", holder, { name });
    const claim = (await call("POST", "/domains/claim", claimant, { name })).body;
    publish(claim.record);
    const behind = await t.app({ services: { ...t.services, catchUp: async () => false } });
    const refused = await call("POST", `/domains/${claim.domain_id}/claim/verify`, claimant, undefined, behind);
    expect(refused).toMatchObject({ status: 503, body: { name: "service_unavailable", message: expect.stringContaining(name) } });
    expect((await call("GET", `/domains/${claim.domain_id}/claim`, claimant)).body).toMatchObject({ status: "pending" });
  });

  it("is blocked while the holder sent from the domain in the last 24 hours", async () => {
    const name = uniqueName();
    await call("POST", "/domains", holder, { name });
    await call("POST", "/emails", holder, { from: `Acme <hello@${name}>`, to: "a@example.test", subject: "Now", html: "<p>x</p>" });
    const claim = (await call("POST", "/domains/claim", claimant, { name })).body;
    publish(claim.record);
    const blocked = await call("POST", `/domains/${claim.domain_id}/claim/verify`, claimant);
    expect(blocked.body).toMatchObject({ status: "blocked", blocked_reason: "recent_owner_activity" });
  });

  it("supersedes an older claim on the same name with a newer one", async () => {
    const name = uniqueName();
    await call("POST", "/domains", holder, { name });
    const first = (await call("POST", "/domains/claim", claimant, { name })).body;
    const second = (await call("POST", "/domains/claim", claimant, { name })).body;
    expect((await call("GET", `/domains/${first.domain_id}/claim`, claimant)).body.status).toBe("superseded");
    expect((await call("GET", `/domains/${second.domain_id}/claim`, claimant)).body.status).toBe("pending");
    publish(first.record);
    expect((await call("POST", `/domains/${first.domain_id}/claim/verify`, claimant)).body.status).toBe("superseded");
  });

  it("lists the team's claims newest first, a page at a time, as their latest checks left them", async () => {
    const lister = await t.aKey("claims-lister");
    const names = [uniqueName(), uniqueName(), uniqueName()];
    const made = [];
    for (const name of names) made.push((await call("POST", "/domains/claim", lister, { name })).body);
    const superseding = (await call("POST", "/domains/claim", claimant, { name: names[0] })).body;
    await call("POST", `/domains/${made[1].domain_id}/claim/verify`, lister);

    const all = await call("GET", "/domains/claims", lister);
    expect(all.status).toBe(200);
    expect(all.body).toMatchObject({ object: "list", has_more: false });
    expect(all.body.data.map((c: { id: string }) => c.id)).toEqual(made.map((c) => c.id).reverse());
    const [third, second, first] = all.body.data;
    expect(third).toEqual(made[2]);
    expect(second).toMatchObject({ status: "failed", failure_reason: expect.stringContaining("No TXT record"), blocked_reason: null });
    expect(second).toEqual((await call("GET", `/domains/${made[1].domain_id}/claim`, lister)).body);
    expect(first).toMatchObject({ status: "superseded", domain_id: made[0].domain_id, failure_reason: null });

    const page1 = await call("GET", "/domains/claims?limit=2", lister);
    expect(page1.body).toMatchObject({ has_more: true, data: [{ id: made[2].id }, { id: made[1].id }] });
    const page2 = await call("GET", `/domains/claims?limit=2&after=${made[1].id}`, lister);
    expect(page2.body).toMatchObject({ has_more: false, data: [{ id: made[0].id }] });
    const back = await call("GET", `/domains/claims?limit=2&before=${made[0].id}`, lister);
    expect(back.body).toMatchObject({ has_more: false, data: [{ id: made[2].id }, { id: made[1].id }] });

    const theirs = (await call("GET", "/domains/claims", claimant)).body.data.map((c: { id: string }) => c.id);
    expect(theirs).toContain(superseding.id);
    expect(theirs).not.toContain(made[0].id);
  });

  it.each([
    ["?limit=0", "`limit`"],
    [`?after=${newId()}&before=${newId()}`, "`after` and `before`"],
    [`?after=${newId()}`, "`after` does not name an item"],
  ])("refuses the claims list with %s, naming the parameter", async (query, words) => {
    expect(await call("GET", `/domains/claims${query}`, claimant)).toMatchObject({
      status: 422,
      body: { name: "validation_error", message: expect.stringContaining(words) },
    });
  });

  it("lists another team's claim to no one else: an unknown cursor for them", async () => {
    const claim = (await call("POST", "/domains/claim", claimant, { name: uniqueName() })).body;
    expect(await call("GET", `/domains/claims?after=${claim.id}`, holder)).toMatchObject({
      status: 422,
      body: { name: "validation_error" },
    });
  });

  it.each([
    [{ custom_return_path: "a.b" }, "`custom_return_path`"],
    [{ tracking_subdomain: "-x" }, "`tracking_subdomain`"],
    [{ open_tracking: "yes" }, "`open_tracking`"],
    [{ click_tracking: 0 }, "`click_tracking`"],
  ])("refuses a claim with %j, naming the field", async (fields, field) => {
    const res = await call("POST", "/domains/claim", claimant, { name: uniqueName(), ...fields });
    expect(res).toMatchObject({
      status: 422,
      body: { statusCode: 422, name: "validation_error", message: expect.stringContaining(field) },
    });
  });

  it("refuses bad input naming the field, a name the team holds, and another team's claim", async () => {
    expect(await call("POST", "/domains/claim", claimant, { name: "nope" })).toMatchObject({
      status: 422,
      body: { name: "validation_error", message: expect.stringContaining("`name`") },
    });
    expect(await call("POST", "/domains/claim", claimant, { name: uniqueName(), region: "moon" })).toMatchObject({
      status: 422,
      body: { name: "invalid_region" },
    });
    expect(await call("POST", "/domains/claim", claimant, {})).toMatchObject({ status: 422, body: { name: "missing_required_field" } });
    const own = uniqueName();
    await call("POST", "/domains", claimant, { name: own });
    expect(await call("POST", "/domains/claim", claimant, { name: own })).toMatchObject({
      status: 403,
      body: { name: "validation_error" },
    });
    const claim = (await call("POST", "/domains/claim", claimant, { name: uniqueName() })).body;
    expect(await call("GET", `/domains/${claim.domain_id}/claim`, holder)).toMatchObject({ status: 404, body: { name: "not_found" } });
    expect((await call("POST", `/domains/${claim.domain_id}/claim/verify`, holder)).status).toBe(404);
  });
});
