import { DomainError, isDomainError, type Decider } from "../decider.js";
import { createdBefore, isLiveFor, markDeleted, noResource, type LiveResource, type ResourceState } from "../teamResource.js";
import type { Capabilities, DnsRecord, DomainEvent, DomainSettings, DomainStatus, RecordStatus, RecordTargets } from "./events.js";
import { domainRecords, isSendingStatus, statusAfterCheck, withStatus } from "./records.js";
import { checkDomainSettings, normalizeDomainName, type DomainSettingsInput } from "./rules.js";

export const domainStream = (domainId: string) => `domain-${domainId}`;

export interface DkimKeyPair {
  selector: string;
  /** Base64 SubjectPublicKeyInfo (DER). */
  publicKey: string;
  /** The PEM private key, sealed by the caller: a decider never sees it in plaintext. */
  sealedPrivateKey: string;
}

/** The settings a PATCH may change; `capabilities` may name one capability only. */
export type DomainChanges = Partial<Omit<DomainSettings, "region" | "customReturnPath" | "capabilities">> & {
  capabilities?: Partial<Capabilities>;
};

/** One record as a round of lookups found it; a record whose name or value changed meanwhile ignores it. */
export interface RecordResult {
  key: DnsRecord["key"];
  name: string;
  value: string;
  status: Exclude<RecordStatus, "not_started" | "pending">;
}

/** What a domain is created from and keeps; a create carries the settings as sent, the state as checked. */
interface DomainBasis<Settings> {
  domainId: string;
  teamId: string;
  name: string;
  settings: Settings;
  targets: RecordTargets;
  dkim: DkimKeyPair;
}

export type DomainCommand =
  | ({ type: "CreateDomain"; now: string } & DomainBasis<DomainSettingsInput>)
  | { type: "UpdateDomain"; teamId: string; changes: DomainChanges; now: string }
  | { type: "DeleteDomain"; teamId: string; now: string; claimedBy?: string }
  | { type: "StartDomainVerification"; teamId: string; verificationId: string; now: string; deadline: string }
  | { type: "RecordDomainCheck"; checkId: string; results: RecordResult[]; now: string }
  | { type: "FailDomainVerification"; verificationId: string; now: string };

interface DomainRecord extends DomainBasis<DomainSettings> {
  records: DnsRecord[];
  domainStatus: DomainStatus;
  /**
   * Whether the last round of lookups found the sending records (DKIM, SPF). A check under way does not
   * clear it: re-verifying a verified domain does not stop its mail while the lookups run.
   */
  sendable: boolean;
  /** The verification under way, whose re-checks run until its deadline. */
  verification: { verificationId: string; deadline: string } | null;
  /** Every round already recorded: a repeated round appends nothing. */
  checkIds: ReadonlySet<string>;
  createdAt: string;
}

export type DomainState = ResourceState<DomainRecord>;
export type LiveDomain = LiveResource<DomainRecord>;

const notFound = () => new DomainError("not_found", "Domain not found");

/** May mail from this domain go out: sending enabled and the sending records verified at the last check. */
export const isEligibleForSending = (domain: DomainState): boolean =>
  domain.status === "active" && domain.settings.capabilities.sending === "enabled" && domain.sendable;

function settingsAfter(settings: DomainSettingsInput, changes: DomainChanges): DomainSettingsInput {
  const { capabilities, ...rest } = changes;
  const next = { ...settings, ...rest, capabilities: { ...settings.capabilities, ...capabilities } };
  return { ...next, trackingSubdomain: next.trackingSubdomain.toLowerCase(), customReturnPath: next.customReturnPath.toLowerCase() };
}

const sameSettings = (a: DomainSettings, b: DomainSettings) =>
  JSON.stringify(Object.entries(a).sort()) === JSON.stringify(Object.entries(b).sort());

export const domainDecider: Decider<DomainCommand, DomainEvent, DomainState> = {
  initialState: noResource,
  evolve(state, event) {
    switch (event.type) {
      case "DomainCreated": {
        const { domainId, teamId, name, targets, createdAt, records, status, ...settings } = event.data;
        const dkim = { selector: targets.dkimSelector, publicKey: "", sealedPrivateKey: "" };
        return {
          status: "active",
          domainId,
          teamId,
          name,
          settings,
          targets,
          dkim,
          records,
          domainStatus: status,
          sendable: false,
          verification: null,
          checkIds: new Set(),
          createdAt,
        };
      }
      case "DomainDkimKeyGenerated": {
        if (state.status === "none") return state;
        const { selector, publicKey, sealedPrivateKey, records, status } = event.data;
        return { ...state, dkim: { selector, publicKey, sealedPrivateKey }, records, domainStatus: status };
      }
      case "DomainUpdated": {
        if (state.status === "none") return state;
        const { domainId: _id, updatedAt: _at, records, status, ...settings } = event.data;
        return { ...state, settings, records, domainStatus: status };
      }
      case "DomainDeleted":
        return markDeleted(state);
      case "DomainVerificationStarted": {
        if (state.status === "none") return state;
        const { verificationId, deadline, records, status } = event.data;
        return { ...state, verification: { verificationId, deadline }, records, domainStatus: status };
      }
      case "DomainRecordsChecked": {
        if (state.status === "none") return state;
        const { checkId, records, status } = event.data;
        return {
          ...state,
          records,
          domainStatus: status,
          sendable: isSendingStatus(status),
          checkIds: new Set([...state.checkIds, checkId]),
        };
      }
      case "DomainVerificationFailed": {
        if (state.status === "none") return state;
        return { ...state, records: event.data.records, domainStatus: event.data.status, sendable: false, verification: null };
      }
    }
  },
  decide(command, state) {
    switch (command.type) {
      case "CreateDomain": {
        if (state.status !== "none")
          return createdBefore(state.teamId === command.teamId && state.dkim.publicKey === command.dkim.publicKey, "Domain");
        const name = normalizeDomainName(command.name);
        if (name === undefined)
          return new DomainError("validation_error", "The `name` field must be a fully qualified domain name, such as `example.com`.");
        const settings = checkDomainSettings(settingsAfter(command.settings, {}));
        if (isDomainError(settings)) return settings;
        const { domainId, teamId, targets, dkim, now } = command;
        const records = domainRecords(name, settings, targets, dkim.publicKey);
        const shown = { records, status: "not_started" as const };
        return [
          { type: "DomainCreated", data: { domainId, teamId, name, ...settings, targets, createdAt: now, ...shown } },
          { type: "DomainDkimKeyGenerated", data: { domainId, ...dkim, generatedAt: now, ...shown } },
        ];
      }
      case "UpdateDomain": {
        if (!isLiveFor(state, command.teamId)) return notFound();
        const settings = checkDomainSettings(settingsAfter(state.settings, command.changes));
        if (isDomainError(settings)) return settings;
        if (sameSettings(settings, state.settings)) return [];
        const records = domainRecords(state.name, settings, state.targets, state.dkim.publicKey, state.records);
        const reset = records.some((r) => r.status === "not_started" && r.key !== "dmarc");
        const status =
          !reset || state.domainStatus === "not_started" || state.domainStatus === "pending"
            ? state.domainStatus
            : statusAfterCheck(records);
        return [{ type: "DomainUpdated", data: { domainId: state.domainId, ...settings, updatedAt: command.now, records, status } }];
      }
      case "DeleteDomain":
        if (!isLiveFor(state, command.teamId)) return notFound();
        return [
          {
            type: "DomainDeleted",
            data: {
              domainId: state.domainId,
              name: state.name,
              deletedAt: command.now,
              ...(command.claimedBy ? { claimedBy: command.claimedBy } : {}),
            },
          },
        ];
      case "StartDomainVerification": {
        if (!isLiveFor(state, command.teamId)) return notFound();
        if (state.verification?.verificationId === command.verificationId) return [];
        const { verificationId, now, deadline } = command;
        const data = {
          domainId: state.domainId,
          verificationId,
          startedAt: now,
          deadline,
          records: withStatus(state.records, "pending"),
          status: "pending" as const,
        };
        return [{ type: "DomainVerificationStarted", data }];
      }
      case "RecordDomainCheck": {
        if (state.status !== "active" || state.checkIds.has(command.checkId)) return [];
        const records = state.records.map((record) => {
          const found = command.results.find((r) => r.key === record.key && r.name === record.name && r.value === record.value);
          return found ? { ...record, status: found.status } : record;
        });
        const data = {
          domainId: state.domainId,
          checkId: command.checkId,
          checkedAt: command.now,
          records,
          status: statusAfterCheck(records),
        };
        return [{ type: "DomainRecordsChecked", data }];
      }
      case "FailDomainVerification": {
        if (state.status !== "active" || state.verification?.verificationId !== command.verificationId) return [];
        if (state.sendable) return [];
        const data = {
          domainId: state.domainId,
          verificationId: command.verificationId,
          failedAt: command.now,
          records: state.records,
          status: "failed" as const,
        };
        return [{ type: "DomainVerificationFailed", data }];
      }
    }
  },
};
