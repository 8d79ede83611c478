import { randomUUID } from "node:crypto";
import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { systemClock, createLogger, formatTimestamp } from "@tidings/core";
import { handleCommand, loadState } from "@tidings/commands";
import {
  domainDecider,
  domainRecords,
  domainStream,
  isEligibleForSending,
  type DnsRecord,
  type DomainCommand,
  type RecordTargets,
} from "@tidings/domain";
import { aDomainSettings } from "@tidings/domain/testing";
import type { EventMetadata, EventStore } from "@tidings/eventstore";
import { testStoreDatabase } from "@tidings/eventstore/testing";
import { migrate, type TestDatabase } from "@tidings/postgres";
import { startDnsResponder, type DnsResponder } from "@tidings/testkit";
import { createRecordLookup } from "./domainRecordLookup.js";
import { checkDomain, domainCheckTimerKey, fireDomainCheck, type DomainVerificationDeps } from "./domainVerification.js";
import { createTimers, startTimerPoller, timerMigrations } from "../timers/index.js";
import { expectChain, requestLikeMetadata } from "../testing/expectChain.js";

const teamId = randomUUID();
const targets: RecordTargets = {
  dkimSelector: "tidings",
  mailHost: "mx.tidings.test",
  spfInclude: "spf.tidings.test",
  inboundHost: "in.tidings.test",
  trackingHost: "t.tidings.test",
};
const settings = aDomainSettings({ capabilities: { sending: "enabled", receiving: "enabled" }, openTracking: true });
const publicKey = "MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEAtest";
const recheckMs = 60_000;
const verifiedRecheckMs = 86_400_000;

let test: TestDatabase;
let store: EventStore;
let dns: DnsResponder;
let deps: DomainVerificationDeps;

const file = testStoreDatabase();
beforeAll(async () => {
  ({ test, store } = file);
  await migrate(test.database, "timers", timerMigrations);
  dns = await startDnsResponder({});
  deps = {
    store,
    clock: systemClock,
    timers: createTimers(test.database),
    lookup: createRecordLookup({ dnsServers: [dns.address], timeoutMs: 1_000 }),
    logger: createLogger("silent"),
    recheckMs,
    verifiedRecheckMs,
  };
});
afterAll(() => dns?.close());

/** The zone a domain owner publishes for `records`, all of them unless some are left out. */
function publish(records: DnsRecord[], leaveOut: DnsRecord["key"][] = []): void {
  for (const record of records.filter((r) => !leaveOut.includes(r.key))) {
    const entry = (dns.zone[record.name] ??= {});
    if (record.type === "TXT") (entry.TXT ??= []).push(record.value);
    if (record.type === "MX") (entry.MX ??= []).push({ priority: record.priority ?? 10, exchange: record.value });
    if (record.type === "CNAME") (entry.CNAME ??= []).push(record.value);
  }
}

const command = (domainId: string, c: DomainCommand, metadata: EventMetadata = { teamId, actor: "test" }) =>
  handleCommand({ store, streamId: domainStream(domainId), decider: domainDecider, command: c, metadata });
const load = (domainId: string) => loadState(store, domainStream(domainId), domainDecider);
const timerDue = async (domainId: string) => {
  const { rows } = await sql<{ due_at: Date }>`SELECT due_at FROM due_timers WHERE key = ${domainCheckTimerKey(domainId)}`.execute(
    test.database.db,
  );
  return rows[0] ? new Date(rows[0].due_at).getTime() - Date.now() : undefined;
};

/** A domain under verification, named uniquely, and its records. */
async function aDomainBeingVerified(deadlineMs = 72 * 3600_000) {
  const domainId = randomUUID();
  const name = `d-${domainId.slice(0, 8)}.example.test`;
  const now = formatTimestamp(new Date());
  await command(domainId, {
    type: "CreateDomain",
    domainId,
    teamId,
    name,
    settings,
    targets,
    dkim: { selector: "tidings", publicKey, sealedPrivateKey: "v1.x" },
    now,
  });
  const verificationId = randomUUID();
  const requestId = randomUUID();
  await command(
    domainId,
    { type: "StartDomainVerification", teamId, verificationId, now, deadline: formatTimestamp(new Date(Date.now() + deadlineMs)) },
    requestLikeMetadata(teamId, requestId),
  );
  return { domainId, verificationId, requestId, records: domainRecords(name, settings, targets, publicKey) };
}
const statuses = (records: DnsRecord[]) => Object.fromEntries(records.map((r) => [r.key, r.status]));

describe("domain verification saga against a DNS server on loopback", () => {
  it("verifies a domain whose records are all published, and re-checks it a day later", async () => {
    const { domainId, records } = await aDomainBeingVerified();
    publish(records);
    await checkDomain(deps, domainId, randomUUID());
    const state = await load(domainId);
    expect(state.status === "active" && state.domainStatus).toBe("verified");
    expect(isEligibleForSending(state)).toBe(true);
    expect(await timerDue(domainId)).toBeGreaterThan(verifiedRecheckMs - 60_000);
  });

  it("is partially verified when a receiving or tracking record is missing, and keeps re-checking", async () => {
    const { domainId, records } = await aDomainBeingVerified();
    publish(records, ["receiving-mx", "dmarc"]);
    await checkDomain(deps, domainId, randomUUID());
    const state = await load(domainId);
    expect(state.status === "active" && state.domainStatus).toBe("partially_verified");
    expect(state.status === "active" && statuses(state.records)).toMatchObject({
      dkim: "verified",
      "receiving-mx": "failed",
      tracking: "verified",
      dmarc: "failed",
    });
    expect(isEligibleForSending(state)).toBe(true);
    expect(await timerDue(domainId)).toBeLessThanOrEqual(recheckMs);
  });

  it("marks a record whose lookup answers SERVFAIL temporary_failure and re-checks in minutes", async () => {
    const { domainId, records } = await aDomainBeingVerified();
    publish(records, ["dkim"]);
    dns.zone[records[0]!.name] = { SERVFAIL: true };
    await checkDomain(deps, domainId, randomUUID());
    const state = await load(domainId);
    expect(state.status === "active" && statuses(state.records)).toMatchObject({
      dkim: "temporary_failure",
      "spf-mx": "verified",
      "spf-txt": "verified",
    });
    expect(state.status === "active" && state.domainStatus).toBe("partially_failed");
    expect(await timerDue(domainId)).toBeLessThanOrEqual(recheckMs);
  });

  it("records a repeated round once", async () => {
    const { domainId, records } = await aDomainBeingVerified();
    publish(records);
    const checkId = randomUUID();
    await checkDomain(deps, domainId, checkId);
    await checkDomain(deps, domainId, checkId);
    expect((await store.readStream(domainStream(domainId))).filter((e) => e.type === "DomainRecordsChecked")).toHaveLength(1);
  });

  it("makes a verified domain whose DKIM record disappeared ineligible for sending at its re-check", async () => {
    const { domainId, records, requestId } = await aDomainBeingVerified(1);
    publish(records);
    await checkDomain(deps, domainId, randomUUID());
    expect(isEligibleForSending(await load(domainId))).toBe(true);
    delete dns.zone[records[0]!.name];
    await fireDomainCheck(deps, { kind: "check-domain", domainId }, new Date());
    const state = await load(domainId);
    expect(isEligibleForSending(state)).toBe(false);
    expect(state.status === "active" && statuses(state.records).dkim).toBe("failed");
    // Both rounds, and the failure past the window, are in the chain of the request that started the verification,
    // each caused by the event before it.
    const recorded = await store.readStream(domainStream(domainId));
    const started = recorded.find((e) => e.type === "DomainVerificationStarted")!;
    const ran = recorded.slice(recorded.indexOf(started) + 1);
    expect(ran.map((e) => e.type)).toEqual(["DomainRecordsChecked", "DomainRecordsChecked", "DomainVerificationFailed"]);
    const causes = [started.id, ran[0]!.id, ran[1]!.id];
    expectChain(ran, { actor: "saga:domain-verification", teamId, correlationId: requestId, causes });
  });

  it("keeps a partially verified domain on a daily check once its window has passed", async () => {
    const { domainId, records } = await aDomainBeingVerified(1);
    publish(records, ["receiving-mx"]);
    await checkDomain(deps, domainId, randomUUID());
    expect(((await load(domainId)) as { domainStatus: string }).domainStatus).toBe("partially_verified");
    expect(await timerDue(domainId)).toBeGreaterThan(verifiedRecheckMs - 60_000);
  });

  it("marks an unverified domain failed once its window has passed, and stops checking", async () => {
    const { domainId } = await aDomainBeingVerified(1);
    await new Promise((r) => setTimeout(r, 5));
    await checkDomain(deps, domainId, randomUUID());
    const state = await load(domainId);
    expect(state.status === "active" && state.domainStatus).toBe("failed");
    expect((await store.readStream(domainStream(domainId))).map((e) => e.type)).toContain("DomainVerificationFailed");
    expect(await timerDue(domainId)).toBeUndefined();
  });

  it("re-checks through the durable timer until the records appear", async () => {
    const fast = { ...deps, recheckMs: 100 };
    const poller = startTimerPoller({
      database: test.database,
      logger: createLogger("silent"),
      intervalMs: 20,
      fire: (timer) => fireDomainCheck(fast, timer.payload as { kind: "check-domain"; domainId: string }, timer.dueAt),
    });
    try {
      const { domainId, records } = await aDomainBeingVerified();
      await checkDomain(fast, domainId, randomUUID());
      expect((await load(domainId)).status === "active" && ((await load(domainId)) as { domainStatus: string }).domainStatus).toBe(
        "failed",
      );
      publish(records);
      const until = Date.now() + 10_000;
      while (((await load(domainId)) as { domainStatus: string }).domainStatus !== "verified") {
        if (Date.now() > until) throw new Error("the re-check never verified the domain");
        await new Promise((r) => setTimeout(r, 50));
      }
    } finally {
      await poller.stop();
    }
  });
});
