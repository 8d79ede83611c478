import { describe, expect, it } from "vitest";
import { domainDecider, domainRecords, fold, withResults, type DomainEvent, type DomainSettings, type LiveDomain } from "@tidings/domain";
import { aDomainSettings, testRecordTargets } from "@tidings/domain/testing";
import { trackingOf } from "./deliveryDomain.js";

const domainId = "9d8c7b6a-5f4e-4d3c-8b2a-1f0e9d8c7b6a";
const teamId = "5c1f3c4e-6a0b-4d2c-9e8f-1a2b3c4d5e6f";
const now = "2026-11-23 10:00:00.000000+00";
const targets = testRecordTargets;
const settings = aDomainSettings({ openTracking: true });

function aDomain(trackingRecord: "verified" | "pending", changes: Partial<DomainSettings> = {}): LiveDomain {
  const chosen = { ...settings, ...changes };
  const records = withResults(domainRecords("acme.test", chosen, targets, "PUBKEY"), {
    tracking: trackingRecord === "verified" ? "verified" : "failed",
  });
  const events: DomainEvent[] = [
    {
      type: "DomainCreated",
      data: { domainId, teamId, name: "acme.test", ...chosen, targets, createdAt: now, records, status: "partially_verified" },
    },
    {
      type: "DomainDkimKeyGenerated",
      data: {
        domainId,
        selector: "tidings",
        publicKey: "PUBKEY",
        sealedPrivateKey: "v1.sealed",
        generatedAt: now,
        records,
        status: "partially_verified",
      },
    },
  ];
  return fold(domainDecider, events) as LiveDomain;
}

describe("a sending domain's tracking", () => {
  it("points at https://<tracking_subdomain>.<domain> once the Tracking record is verified", () =>
    expect(trackingOf(aDomain("verified"), null)).toEqual({ baseUrl: "https://links.acme.test", opens: true, clicks: false }));

  it("tracks nothing while the Tracking record is not verified: a link through a name that does not resolve would be dead", () =>
    expect(trackingOf(aDomain("pending"), null)).toBeUndefined());

  it("points under TRACKING_BASE_URL whatever the record, and tracks nothing with both settings off", () => {
    expect(trackingOf(aDomain("pending", { clickTracking: true }), "http://localhost:3000")).toEqual({
      baseUrl: "http://localhost:3000",
      opens: true,
      clicks: true,
    });
    expect(trackingOf(aDomain("verified", { openTracking: false }), "http://localhost:3000")).toBeUndefined();
  });
});
