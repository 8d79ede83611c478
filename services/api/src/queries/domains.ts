import type { Database } from "@tidings/postgres";
import {
  wireRecords,
  type Capabilities,
  type DomainRegion,
  type DomainStatus,
  type TlsMode,
  type WireDomainRecords,
} from "@tidings/domain";
import { listPage, type ListPage, type PageRequest } from "../pagination.js";
import { wireTimestamp } from "../wireTimestamp.js";
import { readModels } from "@tidings/projections";

export interface DomainListItem {
  id: string;
  name: string;
  status: DomainStatus;
  created_at: string;
  region: DomainRegion;
  capabilities: Capabilities;
  open_tracking: boolean;
  click_tracking: boolean;
  tracking_subdomain: string;
  tls: TlsMode;
  custom_return_path: string;
}

/** The Domain object of docs/wire-compatibility.md §6.4 and §10.7. */
export interface WireDomain extends DomainListItem, WireDomainRecords {
  object: "domain";
}

const columns = [
  "d.id",
  "d.name",
  "d.status",
  wireTimestamp("d.created_at").as("created_at"),
  "d.region",
  "d.capabilities",
  "d.open_tracking",
  "d.click_tracking",
  "d.tracking_subdomain",
  "d.tls",
  "d.custom_return_path",
] as const;

const teamDomains = (database: Database, teamId: string) => readModels(database).selectFrom("domains as d").where("d.team_id", "=", teamId);

/**
 * Newest first; domains is one of the older list endpoints that return everything when `limit` is omitted
 * (docs/wire-compatibility.md §2.1).
 */
export function listDomains(database: Database, teamId: string, page: PageRequest): Promise<ListPage<DomainListItem>> {
  return listPage(teamDomains(database, teamId).select([...columns]), page, { whenLimitOmitted: "all", orderBy: ["d.created_at", "d.id"] });
}

export async function getDomain(database: Database, teamId: string, domainId: string): Promise<WireDomain | undefined> {
  const row = await teamDomains(database, teamId)
    .where("d.id", "=", domainId)
    .select([...columns, "d.records"])
    .executeTakeFirst();
  if (!row) return undefined;
  const { records, ...listed } = row;
  return { object: "domain", ...listed, ...wireRecords(records) };
}
