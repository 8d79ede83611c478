import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { newId } from "@tidings/core";
import type { ApiInstance } from "../app.js";
import { jsonCaller, type JsonMethod } from "../testing/jsonCalls.js";
import { createTestServices, type TestKey, type TestServices } from "../testing/testServices.js";
import { SENDING_DOMAIN_TTL_MS } from "../lookups/sendingDomainCache.js";
import { recordVerified } from "../testing/verifiedDomain.js";

let t: TestServices;
let lenient: ApiInstance;
let strict: ApiInstance;
let admin: TestKey;
let other: TestKey;

beforeAll(async () => {
  t = await createTestServices();
  lenient = await t.app({ services: { ...t.services, config: { ...t.services.config, TIDINGS_ALLOW_UNVERIFIED_FROM: true } } });
  strict = await t.app({ services: { ...t.services, config: { ...t.services.config, TIDINGS_ALLOW_UNVERIFIED_FROM: false } } });
  admin = await t.aKey("sending-domains-team");
  other = await t.aKey("sending-domains-other-team");
});
afterAll(() => t?.dispose());

const call = (app: ApiInstance, method: JsonMethod, url: string, key: TestKey, payload?: unknown) =>
  jsonCaller(
    () => app,
    () => key,
  )(method, url, payload);
const send = (app: ApiInstance, from: string, key: TestKey = admin) =>
  call(app, "POST", "/emails", key, { from, to: "ann@example.test", subject: "Hi", html: "<p>Hi</p>" });

/** A domain of `key`'s team, verified as if its records had been found (the DNS side is the saga's tests). */
async function aDomain(key: TestKey, verified: boolean) {
  const name = `s-${newId().slice(0, 8)}.example.test`;
  const { body } = await call(lenient, "POST", "/domains", key, { name });
  if (verified) await recordVerified(t.store, body.id, body.created_at);
  return { id: body.id as string, name };
}

describe("the sending rule", () => {
  it("accepts a from on a verified domain of the team and records the domain on the email", async () => {
    const domain = await aDomain(admin, true);
    const res = await send(strict, `Acme <hello@${domain.name.toUpperCase()}>`);
    expect(res.status).toBe(200);
    const [queued] = await t.store.readStream(`email-${res.body.id}`);
    expect(queued!.data).toMatchObject({ domainId: domain.id });
  });

  it("lists the emails sent from one domain with GET /emails?domain_id", async () => {
    const domain = await aDomain(admin, true);
    const fromDomain = await send(strict, `Acme <hello@${domain.name}>`);
    await send(lenient, "Acme <hello@elsewhere.example.test>");
    const listed = await call(strict, "GET", `/emails?domain_id=${domain.id}`, admin);
    expect(listed.body.data.map((e: { id: string }) => e.id)).toEqual([fromDomain.body.id]);
    expect((await call(strict, "GET", `/emails?domain_id=${domain.id}`, other)).body.data).toEqual([]);
  });

  it("refuses a from on an unverified domain with 403 validation_error naming it, unless relaxed", async () => {
    const domain = await aDomain(admin, false);
    expect(await send(strict, `hello@${domain.name}`)).toEqual({
      status: 403,
      body: {
        statusCode: 403,
        name: "validation_error",
        message: `The \`${domain.name}\` domain is not verified. Add and verify it before sending from it.`,
      },
    });
    expect((await send(lenient, `hello@${domain.name}`)).status).toBe(200);
  });

  it("refuses a from on another team's verified domain", async () => {
    const domain = await aDomain(other, true);
    expect(await send(strict, `hello@${domain.name}`)).toMatchObject({ status: 403, body: { name: "validation_error" } });
  });

  it("refuses a from on a domain with sending disabled, even relaxed", async () => {
    const domain = await aDomain(admin, true);
    await call(lenient, "PATCH", `/domains/${domain.id}`, admin, { capabilities: { sending: "disabled", receiving: "enabled" } });
    const res = await send(lenient, `hello@${domain.name}`);
    expect(res).toMatchObject({ status: 403, body: { name: "validation_error", message: expect.stringMatching(/sending disabled/) } });
  });

  it("sees sending enabled at once after a refusal, and sending disabled within a second of a send that passed", async () => {
    const domain = await aDomain(admin, true);
    const sending = (value: "enabled" | "disabled") =>
      call(lenient, "PATCH", `/domains/${domain.id}`, admin, { capabilities: { sending: value, receiving: "enabled" } });
    await sending("disabled");
    expect((await send(lenient, `hello@${domain.name}`)).status).toBe(403);
    await sending("enabled");
    // A refusal is never kept: the change shows on the next send.
    expect((await send(lenient, `hello@${domain.name}`)).status).toBe(200);
    await sending("disabled");
    // The passing answer is kept for a second (SENDING_DOMAIN_TTL_MS), no longer.
    await new Promise((resolve) => setTimeout(resolve, SENDING_DOMAIN_TTL_MS + 100));
    expect((await send(lenient, `hello@${domain.name}`)).status).toBe(403);
  });

  it("lets a key restricted to a domain send from that domain only", async () => {
    const mine = await aDomain(admin, true);
    const another = await aDomain(admin, true);
    const restricted = await t.aKey("sending-domains-team", { permission: "sending_access", domainId: mine.id, name: "restricted" });
    expect((await send(strict, `hello@${mine.name}`, restricted)).status).toBe(200);
    expect(await send(strict, `hello@${another.name}`, restricted)).toMatchObject({ status: 403, body: { name: "validation_error" } });
  });

  it("refuses a key restricted to another team's domain", async () => {
    const theirs = await aDomain(other, false);
    const res = await call(lenient, "POST", "/api-keys", admin, { name: "x", permission: "sending_access", domain_id: theirs.id });
    expect(res).toMatchObject({ status: 422, body: { name: "validation_error", message: expect.stringContaining("`domain_id`") } });
  });
});
