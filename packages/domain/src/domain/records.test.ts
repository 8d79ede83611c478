import { describe, expect, it } from "vitest";
import type { DnsRecord } from "./events.js";
import { domainRecords, recordMatches, statusAfterCheck, withResults } from "./records.js";
import { aDomainSettings, testRecordTargets } from "../testing/domainBuilders.js";

const targets = testRecordTargets;
const settings = aDomainSettings;
const shape = (records: DnsRecord[]) =>
  records.map((r) => `${r.record} ${r.type} ${r.name} ${r.value}${r.priority === null ? "" : ` ${r.priority}`}`);

describe("domainRecords", () => {
  it("lists DKIM, SPF (MX and TXT on the return path) and DMARC for a sending domain", () =>
    expect(shape(domainRecords("example.com", settings(), targets, "PUBKEY"))).toEqual([
      "DKIM TXT tidings._domainkey.example.com v=DKIM1; k=rsa; p=PUBKEY",
      "SPF MX send.example.com mx.mail.test 10",
      "SPF TXT send.example.com v=spf1 include:spf.mail.test ~all",
      "DMARC TXT _dmarc.example.com v=DMARC1; p=none;",
    ]));

  it("adds a receiving MX and a tracking CNAME when those are on, on the chosen subdomains", () => {
    const records = domainRecords(
      "example.com",
      settings({
        capabilities: { sending: "enabled", receiving: "enabled" },
        clickTracking: true,
        trackingSubdomain: "t",
        customReturnPath: "bounce",
      }),
      targets,
      "K",
    );
    expect(shape(records)).toEqual(
      expect.arrayContaining([
        "Receiving MX example.com inbound.mail.test 10",
        "Tracking CNAME t.example.com track.mail.test",
        "SPF MX bounce.example.com mx.mail.test 10",
      ]),
    );
    expect(records.every((r) => r.status === "not_started")).toBe(true);
  });

  it("keeps a record's status while its name and value stay, and resets a moved one", () => {
    const before = withResults(domainRecords("example.com", settings({ openTracking: true }), targets, "K"), {
      dkim: "verified",
      tracking: "verified",
    });
    const after = domainRecords("example.com", settings({ openTracking: true, trackingSubdomain: "other" }), targets, "K", before);
    expect(after.find((r) => r.key === "dkim")?.status).toBe("verified");
    expect(after.find((r) => r.key === "tracking")?.status).toBe("not_started");
  });
});

describe("statusAfterCheck", () => {
  const records = domainRecords("example.com", settings({ openTracking: true }), targets, "K");
  it("is verified when every required record is, DMARC aside", () =>
    expect(
      statusAfterCheck(
        withResults(records, { dkim: "verified", "spf-mx": "verified", "spf-txt": "verified", tracking: "verified", dmarc: "failed" }),
      ),
    ).toBe("verified"));
  it("is partially_verified when the sending records are but another is not", () =>
    expect(
      statusAfterCheck(withResults(records, { dkim: "verified", "spf-mx": "verified", "spf-txt": "verified", tracking: "failed" })),
    ).toBe("partially_verified"));
  it("is partially_failed when a sending record is not", () =>
    expect(
      statusAfterCheck(withResults(records, { dkim: "failed", "spf-mx": "verified", "spf-txt": "verified", tracking: "verified" })),
    ).toBe("partially_failed"));
  it("is failed when nothing required is verified, temporary failures included", () =>
    expect(
      statusAfterCheck(
        withResults(records, { dkim: "temporary_failure", "spf-mx": "failed", "spf-txt": "failed", tracking: "failed", dmarc: "verified" }),
      ),
    ).toBe("failed"));
});

describe("recordMatches", () => {
  const [dkim, spfMx, spfTxt, dmarc] = domainRecords("example.com", settings(), targets, "KEY+/=");
  it("matches a DKIM record carrying our key, however it is spaced", () => {
    expect(recordMatches(dkim!, ["v=DKIM1; k=rsa; p=KEY+/="])).toBe(true);
    expect(recordMatches(dkim!, ["v=DKIM1;  p=KEY+/= "])).toBe(true);
    expect(recordMatches(dkim!, ["v=DKIM1; k=rsa; p=OTHER"])).toBe(false);
    expect(recordMatches(dkim!, [])).toBe(false);
  });
  it("matches an SPF record that includes ours among others", () => {
    expect(recordMatches(spfTxt!, ["v=spf1 include:other.test include:spf.mail.test -all"])).toBe(true);
    expect(recordMatches(spfTxt!, ["v=spf1 include:other.test -all"])).toBe(false);
    expect(recordMatches(spfTxt!, ["include:spf.mail.test"])).toBe(false);
  });
  it("matches an MX host whatever its case or trailing dot", () => {
    expect(recordMatches(spfMx!, ["MX.Mail.Test."])).toBe(true);
    expect(recordMatches(spfMx!, ["mx.other.test"])).toBe(false);
  });
  it("matches any published DMARC policy", () => {
    expect(recordMatches(dmarc!, ["v=DMARC1; p=reject; rua=mailto:x@example.com"])).toBe(true);
    expect(recordMatches(dmarc!, ["v=spf1 -all"])).toBe(false);
  });
});
