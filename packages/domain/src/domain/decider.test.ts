import { describe, expect, it } from "vitest";
import { fold } from "../decider.js";
import { given, itRefuses, now, otherTeam, teamId } from "../testing/scenario.js";
import { domainDecider, isEligibleForSending, type DomainCommand, type RecordResult } from "./decider.js";
import type { DomainEvent } from "./events.js";
import { domainRecords, withResults, withStatus } from "./records.js";
import { aDomainSettings, testRecordTargets } from "../testing/domainBuilders.js";

const domainId = "9d8c7b6a-5f4e-4d3c-8b2a-1f0e9d8c7b6a";
const verificationId = "11111111-1111-4111-8111-111111111111";
const checkId = "22222222-2222-4222-8222-222222222222";
const later = "2026-11-23 11:00:00.000000+00";
const deadline = "2026-11-26 10:00:00.000000+00";
const targets = testRecordTargets;
const dkim = { selector: "tidings", publicKey: "PUBKEY", sealedPrivateKey: "v1.sealed" };
const settings = aDomainSettings();
const records = domainRecords("example.com", settings, targets, "PUBKEY");

const create = (overrides: Partial<Extract<DomainCommand, { type: "CreateDomain" }>> = {}): DomainCommand => ({
  type: "CreateDomain",
  domainId,
  teamId,
  name: "Example.COM",
  settings,
  targets,
  dkim,
  now,
  ...overrides,
});
const created: DomainEvent[] = [
  {
    type: "DomainCreated",
    data: { domainId, teamId, name: "example.com", ...settings, targets, createdAt: now, records, status: "not_started" },
  },
  { type: "DomainDkimKeyGenerated", data: { domainId, ...dkim, generatedAt: now, records, status: "not_started" } },
];
const started: DomainEvent = {
  type: "DomainVerificationStarted",
  data: { domainId, verificationId, startedAt: now, deadline, records: withStatus(records, "pending"), status: "pending" },
};
const update = (changes: Extract<DomainCommand, { type: "UpdateDomain" }>["changes"], team = teamId): DomainCommand => ({
  type: "UpdateDomain",
  teamId: team,
  changes,
  now: later,
});
const results = (status: RecordResult["status"], only?: string[]): RecordResult[] =>
  records.filter((r) => !only || only.includes(r.key)).map((r) => ({ key: r.key, name: r.name, value: r.value, status }));
const check = (res: RecordResult[], id = checkId): DomainCommand => ({ type: "RecordDomainCheck", checkId: id, results: res, now: later });
const verifiedEvent: DomainEvent = {
  type: "DomainRecordsChecked",
  data: { domainId, checkId, checkedAt: later, records: withStatus(records, "verified"), status: "verified" },
};

describe("domain decider: create", () => {
  it("creates a not_started domain with its records and a sealed DKIM key, the name lower-cased", () =>
    given(domainDecider).when(create()).then(created));

  it("stores an IDN as punycode", () =>
    expect((domainDecider.decide(create({ name: "bücher.example" }), domainDecider.initialState) as DomainEvent[])[0]!.data).toMatchObject({
      name: "xn--bcher-kva.example",
    }));

  it("treats its own retried create as done", () => given(domainDecider, created).when(create()).then([]));

  itRefuses(domainDecider, [
    ["rejects a name that is not a domain, naming `name`", create({ name: "not a domain" }), "validation_error", /`name`/],
    [
      "rejects an unknown region with invalid_region",
      create({ settings: { ...settings, region: "mars-1" } }),
      "invalid_region",
      /`region`/,
    ],
    [
      "rejects a domain with no capability enabled",
      create({ settings: { ...settings, capabilities: { sending: "disabled", receiving: "disabled" } } }),
      "validation_error",
      /`capabilities`/,
    ],
  ]);

  it("never puts the private key in plaintext into an event", () => {
    const events = domainDecider.decide(create(), domainDecider.initialState) as DomainEvent[];
    expect(JSON.stringify(events)).not.toMatch(/PRIVATE KEY/);
  });
});

describe("domain decider: update", () => {
  it("changes only the fields given", () => {
    const events = domainDecider.decide(update({ openTracking: true }), fold(domainDecider, created)) as DomainEvent[];
    expect(events).toHaveLength(1);
    expect(events[0]!.data).toMatchObject({ ...settings, openTracking: true, status: "not_started" });
    expect((events[0]!.data as { records: { key: string }[] }).records.map((r) => r.key)).toContain("tracking");
  });

  it("merges one capability into the others", () => {
    const events = domainDecider.decide(update({ capabilities: { receiving: "enabled" } }), fold(domainDecider, created)) as DomainEvent[];
    expect(events[0]!.data).toMatchObject({ capabilities: { sending: "enabled", receiving: "enabled" } });
  });

  it("refuses to disable the last enabled capability", () =>
    given(domainDecider, created)
      .when(update({ capabilities: { sending: "disabled" } }))
      .thenError("validation_error", /at least one/));

  it("refuses a bad tracking_subdomain", () =>
    given(domainDecider, created)
      .when(update({ trackingSubdomain: "a.b" }))
      .thenError("validation_error", /`tracking_subdomain`/));

  it("appends nothing when nothing changes", () =>
    given(domainDecider, created)
      .when(update({ tls: "opportunistic" }))
      .then([]));

  it("hides another team's domain", () =>
    given(domainDecider, created)
      .when(update({ tls: "enforced" }, otherTeam))
      .thenError("not_found"));

  it("keeps a verified domain's record statuses, and re-derives its status when a new record appears", () => {
    const events = domainDecider.decide(
      update({ clickTracking: true }),
      fold(domainDecider, [...created, started, verifiedEvent]),
    ) as DomainEvent[];
    expect(events[0]!.data).toMatchObject({ status: "partially_verified" });
  });
});

describe("domain decider: delete", () => {
  it("deletes", () =>
    given(domainDecider, created)
      .when({ type: "DeleteDomain", teamId, now: later })
      .then([{ type: "DomainDeleted", data: { domainId, name: "example.com", deletedAt: later } }]));
  it("hides a deleted domain", () =>
    given(domainDecider, [...created, { type: "DomainDeleted", data: { domainId, name: "example.com", deletedAt: later } }])
      .when(update({ tls: "enforced" }))
      .thenError("not_found"));
});

describe("domain decider: verification", () => {
  it("starts a check: records and domain go pending", () =>
    given(domainDecider, created).when({ type: "StartDomainVerification", teamId, verificationId, now, deadline }).then([started]));

  it("records a round of lookups once", () => {
    given(domainDecider, [...created, started])
      .when(check(results("verified")))
      .then([verifiedEvent]);
    given(domainDecider, [...created, started, verifiedEvent])
      .when(check(results("verified")))
      .then([]);
  });

  it("is verified once DKIM and SPF verify: DMARC is only recommended", () => {
    const events = domainDecider.decide(
      check(results("verified", ["dkim", "spf-mx", "spf-txt"])),
      fold(domainDecider, [...created, started]),
    ) as DomainEvent[];
    expect(events[0]!.data).toMatchObject({ status: "verified" });
  });

  it("records a temporary failure", () => {
    const res = [...results("verified", ["spf-mx", "spf-txt"]), ...results("temporary_failure", ["dkim"])];
    const events = domainDecider.decide(check(res), fold(domainDecider, [...created, started])) as DomainEvent[];
    expect(events[0]!.data).toMatchObject({ status: "partially_failed" });
    expect((events[0]!.data as { records: { key: string; status: string }[] }).records.find((r) => r.key === "dkim")?.status).toBe(
      "temporary_failure",
    );
  });

  it("ignores the result for a record whose value changed since the lookup", () => {
    const stale = results("verified").map((r) => ({ ...r, value: "old" }));
    const events = domainDecider.decide(check(stale), fold(domainDecider, [...created, started])) as DomainEvent[];
    expect(events[0]!.data).toMatchObject({ status: "failed" });
  });

  it("makes a verified domain whose DKIM record disappeared ineligible for sending", () => {
    const verified = fold(domainDecider, [...created, started, verifiedEvent]);
    expect(isEligibleForSending(verified)).toBe(true);
    const gone = domainDecider.decide(
      check(results("failed", ["dkim"]), "33333333-3333-4333-8333-333333333333"),
      verified,
    ) as DomainEvent[];
    expect(isEligibleForSending(fold(domainDecider, [...created, started, verifiedEvent, ...gone]))).toBe(false);
  });

  it("stays eligible for sending while a new verification of a verified domain runs", () => {
    const restarted: DomainEvent = { ...started, data: { ...started.data, verificationId: "44444444-4444-4444-8444-444444444444" } };
    const state = fold(domainDecider, [...created, started, verifiedEvent, restarted]);
    expect(state.status === "active" && state.domainStatus).toBe("pending");
    expect(isEligibleForSending(state)).toBe(true);
  });

  it("is not eligible before any check", () => expect(isEligibleForSending(fold(domainDecider, [...created, started]))).toBe(false));

  it("is not eligible with sending disabled", () => {
    const receivingOnly = domainDecider.decide(
      update({ capabilities: { sending: "disabled", receiving: "enabled" } }),
      fold(domainDecider, [...created, started, verifiedEvent]),
    ) as DomainEvent[];
    expect(isEligibleForSending(fold(domainDecider, [...created, started, verifiedEvent, ...receivingOnly]))).toBe(false);
  });

  it("fails an unverified domain at the deadline, once", () => {
    const failed: DomainEvent = {
      type: "DomainVerificationFailed",
      data: { domainId, verificationId, failedAt: later, records: withStatus(records, "pending"), status: "failed" },
    };
    given(domainDecider, [...created, started])
      .when({ type: "FailDomainVerification", verificationId, now: later })
      .then([failed]);
    given(domainDecider, [...created, started, failed])
      .when({ type: "FailDomainVerification", verificationId, now: later })
      .then([]);
  });

  it("does not fail a domain that verified", () =>
    given(domainDecider, [...created, started, verifiedEvent])
      .when({ type: "FailDomainVerification", verificationId, now: later })
      .then([]));

  it("keeps record statuses through withResults for a partial round", () =>
    expect(withResults(records, { dkim: "verified" }).map((r) => r.status)).toEqual([
      "verified",
      "not_started",
      "not_started",
      "not_started",
    ]));
});
