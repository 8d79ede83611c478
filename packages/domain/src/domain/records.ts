import type { DnsRecord, DomainSettings, DomainStatus, RecordKey, RecordStatus, RecordTargets } from "./events.js";

/** The DKIM record's value for a public key (base64 SubjectPublicKeyInfo, RFC 6376 §3.6.1). */
export const dkimRecordValue = (publicKey: string) => `v=DKIM1; k=rsa; p=${publicKey}`;
export const spfRecordValue = (spfInclude: string) => `v=spf1 include:${spfInclude} ~all`;
export const DMARC_RECOMMENDED = "v=DMARC1; p=none;";

type Unchecked = Omit<DnsRecord, "status">;

/** A DNS record as GET /domains and the domain webhooks show it (docs/wire-compatibility.md §6.4, §8.2); `priority` only on MX records. */
export interface WireDnsRecord<Name extends string = DnsRecord["record"]> {
  record: Name;
  name: string;
  type: DnsRecord["type"];
  ttl: "Auto";
  status: RecordStatus;
  value: string;
  priority?: number;
}

/**
 * The records a domain shows, split as typed clients need them. Resend's published document makes
 * `records[].record` a closed list (`SPF`, `DKIM`, `Receiving`, `Tracking`, `TrackingCAA`), so the DMARC
 * advice, which no send depends on, goes in `recommended_records` beside it. The domain webhooks spell
 * the receiving record `Receiving MX`, as that document does there.
 */
export interface WireDomainRecords {
  records: WireDnsRecord<Exclude<DnsRecord["record"], "DMARC">>[];
  recommended_records: WireDnsRecord<"DMARC">[];
}

export function wireRecords(records: readonly DnsRecord[]): WireDomainRecords {
  return {
    records: records.flatMap((r) => (r.record === "DMARC" ? [] : [wireRecord(r, r.record)])),
    recommended_records: records.flatMap((r) => (r.record === "DMARC" ? [wireRecord(r, r.record)] : [])),
  };
}

export function webhookRecords(records: readonly DnsRecord[]): WireDnsRecord<"SPF" | "DKIM" | "Receiving MX" | "Tracking">[] {
  return wireRecords(records).records.map((r) =>
    r.record === "Receiving" ? { ...r, record: "Receiving MX" as const } : { ...r, record: r.record },
  );
}

const wireRecord = <Name extends string>(r: DnsRecord, record: Name): WireDnsRecord<Name> => ({
  record,
  name: r.name,
  type: r.type,
  ttl: "Auto",
  status: r.status,
  value: r.value,
  ...(r.priority === null ? {} : { priority: r.priority }),
});

/**
 * The records a domain asks its owner to publish, for its settings now: DKIM, SPF (an MX and a TXT on the
 * return-path subdomain), a receiving MX when receiving is on, a tracking CNAME when either tracking is
 * on, and a recommended DMARC. A record that was there before keeps its status unless its value changed.
 */
export function domainRecords(
  name: string,
  settings: DomainSettings,
  targets: RecordTargets,
  publicKey: string,
  previous: DnsRecord[] = [],
): DnsRecord[] {
  const returnPath = `${settings.customReturnPath}.${name}`;
  const wanted: Unchecked[] = [
    {
      key: "dkim",
      record: "DKIM",
      type: "TXT",
      name: `${targets.dkimSelector}._domainkey.${name}`,
      value: dkimRecordValue(publicKey),
      priority: null,
    },
    { key: "spf-mx", record: "SPF", type: "MX", name: returnPath, value: targets.mailHost, priority: 10 },
    { key: "spf-txt", record: "SPF", type: "TXT", name: returnPath, value: spfRecordValue(targets.spfInclude), priority: null },
  ];
  if (settings.capabilities.receiving === "enabled")
    wanted.push({ key: "receiving-mx", record: "Receiving", type: "MX", name, value: targets.inboundHost, priority: 10 });
  if (settings.openTracking || settings.clickTracking)
    wanted.push({
      key: "tracking",
      record: "Tracking",
      type: "CNAME",
      name: `${settings.trackingSubdomain}.${name}`,
      value: targets.trackingHost,
      priority: null,
    });
  wanted.push({ key: "dmarc", record: "DMARC", type: "TXT", name: `_dmarc.${name}`, value: DMARC_RECOMMENDED, priority: null });
  return wanted.map((record) => {
    const before = previous.find((p) => p.key === record.key);
    const same = before && before.name === record.name && before.value === record.value;
    return { ...record, status: same ? before.status : "not_started" };
  });
}

/** Records that decide the domain's status; DMARC is only recommended. */
const counts = (record: DnsRecord) => record.key !== "dmarc";
/** The records a send relies on: the DKIM signature and the return path. */
const sendingKeys: RecordKey[] = ["dkim", "spf-mx", "spf-txt"];

/**
 * The domain's status after a round of checks:
 * - `verified`: every required record verified;
 * - `partially_verified`: the sending records verified, another (receiving, tracking) not yet;
 * - `failed`: no required record verified;
 * - `partially_failed`: some verified, but not all the sending ones.
 * A temporary failure counts as not verified: the re-checks go on until the deadline.
 */
export function statusAfterCheck(records: DnsRecord[]): DomainStatus {
  const required = records.filter(counts);
  const verified = required.filter((r) => r.status === "verified");
  if (verified.length === required.length) return "verified";
  if (verified.length === 0) return "failed";
  return sendingKeys.every((key) => records.find((r) => r.key === key)?.status === "verified") ? "partially_verified" : "partially_failed";
}

/** What a round of lookups found, record by record. */
export type CheckResults = Partial<Record<RecordKey, Exclude<RecordStatus, "not_started" | "pending">>>;

export function withResults(records: DnsRecord[], results: CheckResults): DnsRecord[] {
  return records.map((record) => ({ ...record, status: results[record.key] ?? record.status }));
}

export const withStatus = (records: DnsRecord[], status: RecordStatus): DnsRecord[] => records.map((record) => ({ ...record, status }));

/** May the domain's mail go out: sending enabled, and the records a send relies on verified at the last check. */
export const isSendingStatus = (status: DomainStatus) => status === "verified" || status === "partially_verified";

const hostOf = (value: string) => value.toLowerCase().replace(/\.$/, "");
const compact = (value: string) => value.replace(/\s+/g, "");

/**
 * Whether what DNS answered for a record's name and type satisfies it. TXT answers are whole records (the
 * character-strings joined). SPF passes when a `v=spf1` record includes ours, whatever else it includes;
 * DKIM when a record carries our key; DMARC when any DMARC policy is published.
 */
export function recordMatches(record: Pick<DnsRecord, "key" | "type" | "value">, answers: string[]): boolean {
  switch (record.key) {
    case "spf-txt": {
      const include = record.value.split(/\s+/).find((term) => term.startsWith("include:"))!;
      return answers.some(
        (a) => /^v=spf1(\s|$)/i.test(a.trim()) && a.split(/\s+/).some((term) => term.toLowerCase() === include.toLowerCase()),
      );
    }
    case "dkim": {
      const key = /p=([^;]+)/.exec(compact(record.value))?.[1];
      return answers.some((a) => /p=([^;]+)/.exec(compact(a))?.[1] === key);
    }
    case "dmarc":
      return answers.some((a) => /^v=DMARC1\s*(;|$)/i.test(a.trim()));
    default:
      return answers.some((a) => hostOf(a) === hostOf(record.value));
  }
}
