import { describe, expect, it } from "vitest";
import type { DomainSettings, RecordTargets } from "@tidings/domain";
import { dnsChanges, localRecords, NEW_DKIM_KEY } from "./dnsChanges.js";

const settings: DomainSettings = {
  region: "us-east-1",
  tls: "opportunistic",
  capabilities: { sending: "enabled", receiving: "disabled" },
  openTracking: false,
  clickTracking: false,
  trackingSubdomain: "links",
  customReturnPath: "send",
};
const targets: RecordTargets = {
  dkimSelector: "tidings",
  mailHost: "feedback-smtp.us-east-1.amazonses.com",
  spfInclude: "amazonses.com",
  inboundHost: "inbound.example.net",
  trackingHost: "track.example.net",
};

/** What Resend shows for example.com: names relative to the domain, its own DKIM selector. */
const resendRecords = [
  { record: "SPF", name: "send", type: "MX", value: "feedback-smtp.us-east-1.amazonses.com", priority: 10 },
  { record: "SPF", name: "send", type: "TXT", value: '"v=spf1 include:amazonses.com ~all"' },
  { record: "DKIM", name: "resend._domainkey", type: "TXT", value: "p=MIGfMA0" },
];

describe("dnsChanges", () => {
  it("keeps the records whose name, type and value the source had, and adds a DKIM record under our selector", () => {
    const changes = dnsChanges("example.com", resendRecords, localRecords("example.com", settings, targets));
    expect(changes.map((c) => [c.action, c.record, c.type, c.name])).toEqual([
      ["add", "DKIM", "TXT", "tidings._domainkey.example.com"],
      ["keep", "SPF", "MX", "send.example.com"],
      ["keep", "SPF", "TXT", "send.example.com"],
      ["add", "DMARC", "TXT", "_dmarc.example.com"],
      ["remove", "DKIM", "TXT", "resend._domainkey.example.com"],
    ]);
    expect(changes[0]!.value).toBe(NEW_DKIM_KEY);
  });

  it("changes a DKIM record of the same name whatever its value, and a record whose value differs", () => {
    const source = [
      { record: "DKIM", name: "tidings._domainkey.example.com.", type: "TXT", value: "v=DKIM1; k=rsa; p=OLD" },
      { record: "SPF", name: "send.example.com", type: "MX", value: "mx.elsewhere.test", priority: 10 },
    ];
    const changes = dnsChanges("example.com", source, localRecords("example.com", settings, targets, "NEW"));
    expect(changes.find((c) => c.record === "DKIM")).toMatchObject({
      action: "change",
      value: "v=DKIM1; k=rsa; p=NEW",
      sourceValue: "v=DKIM1; k=rsa; p=OLD",
    });
    expect(changes.find((c) => c.type === "MX")).toMatchObject({ action: "change", sourceValue: "mx.elsewhere.test" });
  });
});
