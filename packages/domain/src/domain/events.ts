import { z } from "zod";
import { eventSchema, eventUnion } from "../eventSchema.js";

/** docs/wire-compatibility.md §10.7: the four regions, `us-east-1` by default. */
export const domainRegions = ["us-east-1", "eu-west-1", "sa-east-1", "ap-northeast-1"] as const;
export type DomainRegion = (typeof domainRegions)[number];
export const tlsModes = ["opportunistic", "enforced"] as const;
export type TlsMode = (typeof tlsModes)[number];
export const capabilityStates = ["enabled", "disabled"] as const;
/** docs/wire-compatibility.md §6.4 / §7. */
export const domainStatuses = ["not_started", "pending", "verified", "failed", "partially_verified", "partially_failed"] as const;
export type DomainStatus = (typeof domainStatuses)[number];
export const recordStatuses = ["not_started", "pending", "verified", "failed", "temporary_failure"] as const;
export type RecordStatus = (typeof recordStatuses)[number];

export const Capabilities = z.object({ sending: z.enum(capabilityStates), receiving: z.enum(capabilityStates) });
export type Capabilities = z.infer<typeof Capabilities>;

/** What a team chooses about its domain; PATCH changes any of these but the return path. */
export const DomainSettings = z.object({
  region: z.enum(domainRegions),
  tls: z.enum(tlsModes),
  capabilities: Capabilities,
  openTracking: z.boolean(),
  clickTracking: z.boolean(),
  trackingSubdomain: z.string(),
  customReturnPath: z.string(),
});
export type DomainSettings = z.infer<typeof DomainSettings>;

/** Where the records point: the install's settings when the domain was created (DKIM_SELECTOR, MAIL_HOST, …). */
export const RecordTargets = z.object({
  dkimSelector: z.string(),
  mailHost: z.string(),
  spfInclude: z.string(),
  inboundHost: z.string(),
  trackingHost: z.string(),
});
export type RecordTargets = z.infer<typeof RecordTargets>;

/** `record` names the purpose (docs/wire-compatibility.md §6.4); `key` tells records of one purpose apart (SPF has an MX and a TXT). */
export const DnsRecord = z.object({
  key: z.enum(["dkim", "spf-mx", "spf-txt", "receiving-mx", "tracking", "dmarc"]),
  record: z.enum(["DKIM", "SPF", "Receiving", "Tracking", "DMARC"]),
  type: z.enum(["TXT", "MX", "CNAME"]),
  name: z.string(),
  value: z.string(),
  priority: z.number().int().nullable(),
  status: z.enum(recordStatuses),
});
export type DnsRecord = z.infer<typeof DnsRecord>;
export type RecordKey = DnsRecord["key"];

/** Every event that changes what GET shows carries the whole record list and status, so a read model just replaces them. */
const shown = { records: z.array(DnsRecord), status: z.enum(domainStatuses) };

export const DomainCreated = eventSchema("DomainCreated", {
  ...DomainSettings.shape,
  domainId: z.uuid(),
  teamId: z.uuid(),
  name: z.string(),
  targets: RecordTargets,
  createdAt: z.string(),
  ...shown,
});

/**
 * A new DKIM key pair. The private key is sealed (AES-256-GCM under TIDINGS_SECRET, docs/architecture.md §4): no event
 * ever holds it in plaintext. The public key is the DKIM record's `p=`.
 */
export const DomainDkimKeyGenerated = eventSchema("DomainDkimKeyGenerated", {
  domainId: z.uuid(),
  selector: z.string(),
  publicKey: z.string(),
  sealedPrivateKey: z.string(),
  generatedAt: z.string(),
  ...shown,
});

export const DomainUpdated = eventSchema("DomainUpdated", { ...DomainSettings.shape, domainId: z.uuid(), updatedAt: z.string(), ...shown });

/** `claimedBy`: the domain of the team that took the name over with a claim, when that is why. */
export const DomainDeleted = eventSchema("DomainDeleted", {
  domainId: z.uuid(),
  name: z.string(),
  deletedAt: z.string(),
  claimedBy: z.uuid().optional(),
});

/** A check was asked for: records go `pending`, and re-checks run until `deadline` (72 h) unless verified first. */
export const DomainVerificationStarted = eventSchema("DomainVerificationStarted", {
  domainId: z.uuid(),
  verificationId: z.uuid(),
  startedAt: z.string(),
  deadline: z.string(),
  ...shown,
});

/** One round of DNS lookups. `checkId` makes a redelivered or repeated round append nothing. */
export const DomainRecordsChecked = eventSchema("DomainRecordsChecked", {
  domainId: z.uuid(),
  checkId: z.uuid(),
  checkedAt: z.string(),
  ...shown,
});

/** 72 h of re-checks passed without the domain becoming usable for sending. */
export const DomainVerificationFailed = eventSchema("DomainVerificationFailed", {
  domainId: z.uuid(),
  verificationId: z.uuid(),
  failedAt: z.string(),
  ...shown,
});

export const DomainEvent = eventUnion([
  DomainCreated,
  DomainDkimKeyGenerated,
  DomainUpdated,
  DomainDeleted,
  DomainVerificationStarted,
  DomainRecordsChecked,
  DomainVerificationFailed,
]);
export type DomainEvent = z.infer<typeof DomainEvent>;
