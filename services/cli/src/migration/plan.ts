import { recordTargets, settingsOf } from "@tidings/api";
import { loadState } from "@tidings/commands";
import type { Config } from "@tidings/core";
import {
  checkDomainSettings,
  domainDecider,
  domainStream,
  isDomainError,
  migratedKinds,
  type DnsRecord,
  type MigratedKind,
  type MigrationMapping,
} from "@tidings/domain";
import type { EventStore } from "@tidings/eventstore";
import { dnsChanges, localRecords, type DnsChange } from "./dnsChanges.js";
import { domainInput } from "./sourceFields.js";
import type { SourceApi } from "./sourceApi.js";
import { sourceLists, type SourceDomain } from "./sourceResources.js";

/** What the source holds of each kind, and how much of it earlier runs copied. */
export interface KindPlan {
  total: number;
  copied: number;
  toCopy: number;
}

export interface DomainPlan {
  sourceId: string;
  name: string;
  /** The DNS records as they must be once the domain is here; `change` and `add` are the owner's to do. */
  records: DnsChange[];
  /** Why the domain cannot be created here as the source has it (a setting we do not take). */
  problem?: string;
}

export interface MigrationPlan {
  resources: Record<MigratedKind, KindPlan>;
  domains: DomainPlan[];
}

/**
 * Reads every list of the source (one request per page) and each domain's records, and compares them with
 * what is copied already and what this installation's domain will ask for. Writes nothing.
 */
export async function planMigration(
  api: SourceApi,
  local: { store: EventStore; config: Config },
  mapping: MigrationMapping,
): Promise<MigrationPlan> {
  const resources = {} as Record<MigratedKind, KindPlan>;
  let domains: { id: string }[] = [];
  for (const kind of migratedKinds) {
    const items = await api.list(sourceLists[kind]);
    const copied = items.filter((item) => mapping[kind][item.id] !== undefined).length;
    resources[kind] = { total: items.length, copied, toCopy: items.length - copied };
    if (kind === "domain") domains = items;
  }
  const planned: DomainPlan[] = [];
  for (const { id } of domains) {
    const domain = await api.get<SourceDomain>(`/domains/${id}`);
    if (!domain) continue;
    const source = [...(domain.records ?? []), ...(domain.recommended_records ?? [])];
    const wanted = await wantedRecords(domain, local, mapping.domain[id]);
    planned.push(
      typeof wanted === "string"
        ? { sourceId: id, name: domain.name, records: [], problem: wanted }
        : { sourceId: id, name: domain.name, records: dnsChanges(domain.name, source, wanted) },
    );
  }
  return { resources, domains: planned };
}

/** A copied domain's records as recorded here; otherwise the ones it will get, its DKIM key still to come. */
async function wantedRecords(
  domain: SourceDomain,
  local: { store: EventStore; config: Config },
  localId: string | undefined,
): Promise<DnsRecord[] | string> {
  if (localId !== undefined) {
    const state = await loadState(local.store, domainStream(localId), domainDecider);
    if (state.status !== "none") return state.records;
  }
  const settings = checkDomainSettings(settingsOf(domainInput(domain)));
  if (isDomainError(settings)) return settings.message;
  return localRecords(domain.name, settings, recordTargets(local.config));
}
