import { randomUUID } from "node:crypto";
import { Resolver } from "node:dns/promises";
import { setTimeout as sleep } from "node:timers/promises";
import { dkimVerify } from "mailauth/lib/dkim/verify.js";
import { Resend } from "resend";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startDnsResponder, type DnsResponder, type SmtpSink } from "@tidings/testkit";
import { publishRecords, waitForDomain as waitForDomainOf, type Domain, type WireRecord } from "../support/domainRecords.js";
import { startMailingServer, type MailingServer } from "../support/mailingServer.js";
import { aTeamKey } from "../support/teamKey.js";
import type { TestServer } from "../support/testServer.js";
import { uuid, wireTimestamp } from "../support/wire.js";

/**
 * Domains through the resend SDK (docs/wire-compatibility.md §6.4) against a whole server whose verification saga asks a
 * real DNS server on loopback, where each test publishes, withholds or breaks its records.
 */
let dns: DnsResponder;
let mailing: MailingServer;
let sink: SmtpSink;
let server: TestServer;
let resend: Resend;

beforeAll(async () => {
  dns = await startDnsResponder({});
  mailing = await startMailingServer({
    DNS_SERVERS: dns.address,
    TIDINGS_ALLOW_UNVERIFIED_FROM: "false",
    DOMAIN_RECHECK_MS: "1000",
    MAIL_HOST: "mx.tidings.test",
    SPF_INCLUDE: "_spf.tidings.test",
    INBOUND_HOST: "inbound.tidings.test",
    TRACKING_HOST: "track.tidings.test",
  });
  ({ sink, server, resend } = mailing);
});
afterAll(async () => {
  await mailing?.stop();
  await dns?.close();
});

const uniqueName = (label: string) => `${label}-${randomUUID().slice(0, 8)}.example.test`;

async function create(payload: Parameters<Resend["domains"]["create"]>[0]): Promise<Domain> {
  const { data, error } = await resend.domains.create(payload);
  if (error) throw new Error(`create: ${error.name}: ${error.message}`);
  return data as unknown as Domain;
}

const publish = (records: WireRecord[], leaveOut?: (r: WireRecord) => boolean) => publishRecords(dns, records, leaveOut);
const waitForDomain = (id: string, until: (d: Domain) => boolean, timeoutMs?: number) => waitForDomainOf(resend, id, until, timeoutMs);
const recordStatus = (domain: Domain, record: string, type?: string) =>
  domain.records.find((r) => r.record === record && (!type || r.type === type))?.status;

describe("resend.domains", () => {
  it("takes a domain from not_started to verified once its records are published", async () => {
    const name = uniqueName("journey");
    const created = await create({ name });
    expect(created).toMatchObject({
      id: expect.stringMatching(uuid),
      name,
      status: "not_started",
      region: "us-east-1",
      capabilities: { sending: "enabled", receiving: "disabled" },
    });
    expect(created.created_at).toMatch(wireTimestamp);
    expect(created.records.map((r) => [r.record, r.type, r.name, r.status, r.ttl])).toEqual([
      ["DKIM", "TXT", `tidings._domainkey.${name}`, "not_started", "Auto"],
      ["SPF", "MX", `send.${name}`, "not_started", "Auto"],
      ["SPF", "TXT", `send.${name}`, "not_started", "Auto"],
    ]);
    const recommended = (created as typeof created & { recommended_records: WireRecord[] }).recommended_records;
    expect(recommended.map((r) => [r.record, r.type, r.name, r.status, r.ttl])).toEqual([
      ["DMARC", "TXT", `_dmarc.${name}`, "not_started", "Auto"],
    ]);
    expect(created.records[1]).toMatchObject({ value: "mx.tidings.test", priority: 10 });
    expect(created.records[2]!.value).toBe("v=spf1 include:_spf.tidings.test ~all");

    publish(created.records);
    expect((await resend.domains.verify(created.id)).data).toEqual({ object: "domain", id: created.id });
    const verified = await waitForDomain(created.id, (d) => d.status === "verified");
    expect(verified.records.every((r) => r.status === "verified")).toBe(true);
    const listed = await resend.domains.list();
    expect(listed.data?.data.find((d) => d.id === created.id)).toMatchObject({ name, status: "verified" });
  });

  it("is partially verified while the receiving record is missing", async () => {
    const domain = await create({ name: uniqueName("partial"), capabilities: { sending: "enabled", receiving: "enabled" } });
    publish(domain.records, (r) => r.record === "Receiving");
    await resend.domains.verify(domain.id);
    const partial = await waitForDomain(domain.id, (d) => d.status === "partially_verified");
    expect(recordStatus(partial, "Receiving")).toBe("failed");
    expect(recordStatus(partial, "DKIM")).toBe("verified");
  });

  it("marks a record whose lookup gets SERVFAIL temporary_failure", async () => {
    const domain = await create({ name: uniqueName("servfail") });
    publish(domain.records, (r) => r.record === "DKIM");
    dns.zone[domain.records.find((r) => r.record === "DKIM")!.name] = { SERVFAIL: true };
    await resend.domains.verify(domain.id);
    const checked = await waitForDomain(domain.id, (d) => d.status !== "pending");
    expect(recordStatus(checked, "DKIM")).toBe("temporary_failure");
    expect(checked.status).toBe("partially_failed");
  });

  it("updates only the fields given, and refuses to disable the last capability", async () => {
    const domain = await create({ name: uniqueName("patch"), capabilities: { sending: "enabled", receiving: "enabled" } });
    expect((await resend.domains.update({ id: domain.id, clickTracking: true, trackingSubdomain: "go" })).data).toEqual({
      object: "domain",
      id: domain.id,
    });
    expect((await resend.domains.update({ id: domain.id, capabilities: { sending: "disabled" } })).error).toBeNull();
    const last = await resend.domains.update({ id: domain.id, capabilities: { receiving: "disabled" } });
    expect(last.error).toMatchObject({ statusCode: 422, name: "validation_error", message: expect.stringContaining("`capabilities`") });
    const { data } = await resend.domains.get(domain.id);
    expect(data).toMatchObject({
      click_tracking: true,
      open_tracking: false,
      tracking_subdomain: "go",
      capabilities: { sending: "disabled", receiving: "enabled" },
    });
    expect(data?.records.find((r) => r.record === "Tracking")).toMatchObject({
      type: "CNAME",
      name: `go.${domain.name}`,
      value: "track.tidings.test",
    });
  });

  it("refuses bad input with the reference's errors, naming the field", async () => {
    const region = await resend.domains.create({ name: uniqueName("region"), region: "mars-1" as "us-east-1" });
    expect(region.error).toMatchObject({ statusCode: 422, name: "invalid_region", message: expect.stringContaining("`region`") });
    const name = await resend.domains.create({ name: "not a domain" });
    expect(name.error).toMatchObject({ statusCode: 422, name: "validation_error", message: expect.stringContaining("`name`") });
    expect((await resend.domains.get(randomUUID())).error).toEqual({ statusCode: 404, name: "not_found", message: "Domain not found" });
  });

  it("removes a domain", async () => {
    const domain = await create({ name: uniqueName("remove") });
    expect((await resend.domains.remove(domain.id)).data).toEqual({ object: "domain", id: domain.id, deleted: true });
    expect((await resend.domains.get(domain.id)).error?.name).toBe("not_found");
  });
});

describe("sending from a domain", () => {
  const from = (name: string) => `Acme <hello@${name}>`;
  const lastEvent = async (id: string, expected: string) => {
    const deadline = Date.now() + 15_000;
    for (;;) {
      const current = (await resend.emails.get(id)).data?.last_event;
      if (current === expected) return;
      if (Date.now() > deadline) throw new Error(`last_event is ${current}, expected ${expected}`);
      await sleep(100);
    }
  };
  async function aVerifiedDomain(tls: "opportunistic" | "enforced" = "opportunistic") {
    const domain = await create({ name: uniqueName("sender"), tls });
    publish(domain.records);
    await resend.domains.verify(domain.id);
    await waitForDomain(domain.id, (d) => d.status === "verified");
    return domain;
  }

  it("delivers mail from a verified domain DKIM-signed from its return path; the signature verifies against the published key", async () => {
    const domain = await aVerifiedDomain();
    const { data, error } = await resend.emails.send({
      from: from(domain.name),
      to: "ann@example.test",
      subject: "Signed",
      html: "<p>Signed</p>",
    });
    expect(error).toBeNull();
    await lastEvent(data!.id, "delivered");
    const ours = (m: { messageId: string | null }) => m.messageId?.startsWith(`<${data!.id}@`) ?? false;
    const { raw, envelope } = (await sink.waitFor((received) => received.some(ours))).find(ours)!;
    // The envelope sender is on the return path, whose MX and SPF records the domain published, and names the email.
    expect(envelope.from).toMatch(new RegExp(`^bounce\\+${data!.id}\\.[0-9a-f]{16}@send\\.${domain.name.replace(/\./g, "\\.")}$`));
    const loopback = new Resolver();
    loopback.setServers([dns.address]);
    const verified = await dkimVerify(raw, { resolver: (name: string, type: string) => loopback.resolve(name, type as "TXT") });
    expect(verified.results).toHaveLength(1);
    expect(verified.results[0]).toMatchObject({ signingDomain: domain.name, selector: "tidings", status: { result: "pass" } });
  });

  it("refuses a send from an unverified domain, and from a domain never registered", async () => {
    const domain = await create({ name: uniqueName("unverified") });
    const refused = await resend.emails.send({ from: from(domain.name), to: "ann@example.test", subject: "No", html: "<p>No</p>" });
    expect(refused.error).toEqual({
      statusCode: 403,
      name: "validation_error",
      message: `The \`${domain.name}\` domain is not verified. Add and verify it before sending from it.`,
    });
    const unknown = await resend.emails.send({
      from: "hello@nowhere.example.test",
      to: "ann@example.test",
      subject: "No",
      html: "<p>No</p>",
    });
    expect(unknown.error).toMatchObject({ statusCode: 403, name: "validation_error" });
  });

  it("fails an email from an enforced-TLS domain when the receiving server offers no TLS", async () => {
    const domain = await aVerifiedDomain("enforced");
    const { data } = await resend.emails.send({ from: from(domain.name), to: "bob@example.test", subject: "TLS", html: "<p>TLS</p>" });
    await lastEvent(data!.id, "failed");
    expect(sink.received.some((m) => m.messageId?.startsWith(`<${data!.id}@`))).toBe(false);
  });
});

describe("resend.domains.claims", () => {
  it("takes a domain over from another team: blocked by its scheduled mail first, then completed", async () => {
    const claimant = new Resend(await aTeamKey(server.serving.runtime, "claimant"), { baseUrl: server.url });
    const held = await create({ name: uniqueName("claimed") });
    publish(held.records);
    await resend.domains.verify(held.id);
    await waitForDomain(held.id, (d) => d.status === "verified");
    const scheduled = await resend.emails.send({
      from: `hello@${held.name}`,
      to: "ann@example.test",
      subject: "Later",
      html: "<p>x</p>",
      scheduledAt: "in 1 hour",
    });
    expect(scheduled.error).toBeNull();

    const taken = await claimant.domains.create({ name: held.name });
    expect(taken.error).toMatchObject({ statusCode: 403, name: "validation_error", message: expect.stringContaining("claim") });
    const { data: claim, error } = await claimant.domains.claims.create({ name: held.name });
    expect(error).toBeNull();
    expect(claim).toMatchObject({
      object: "domain_claim",
      name: held.name,
      status: "pending",
      record: { type: "TXT", name: held.name, ttl: "Auto" },
      blocked_reason: null,
    });
    expect(claim!.expires_at).toMatch(wireTimestamp);
    (dns.zone[held.name] ??= {}).TXT = [claim!.record.value];

    const blocked = await claimant.domains.claims.verify(claim!.domain_id!);
    expect(blocked.data).toMatchObject({ status: "blocked", blocked_reason: "pending_scheduled_emails" });
    expect((await claimant.domains.claims.get(claim!.domain_id!)).data).toMatchObject({ status: "blocked" });

    expect((await resend.emails.cancel(scheduled.data!.id)).error).toBeNull();
    const completed = await claimant.domains.claims.verify(claim!.domain_id!);
    expect(completed.data).toMatchObject({ status: "completed", blocked_reason: null, failure_reason: null });

    expect((await resend.domains.get(held.id)).error?.name).toBe("not_found");
    const { data: theirs } = await claimant.domains.get(claim!.domain_id!);
    expect(theirs).toMatchObject({ name: held.name, status: "not_started" });
    expect(theirs!.records.find((r) => r.record === "DKIM")!.value).not.toBe(held.records.find((r) => r.record === "DKIM")!.value);
  });
});
