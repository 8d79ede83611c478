import type { Capabilities, DnsRecord, DomainEvent, DomainStatus, DomainRegion, TlsMode } from "@tidings/domain";
import { holds, type BatchContext, type Projection } from "../engine/projection.js";
import { handlersOf, type EventData } from "../engine/typedHandlers.js";
import { teamResourceTable } from "./teamResourceTable.js";

const settingsColumns = (data: EventData<DomainEvent, "DomainCreated" | "DomainUpdated">) => ({
  region: data.region,
  tls: data.tls,
  capabilities: data.capabilities,
  open_tracking: data.openTracking,
  click_tracking: data.clickTracking,
  tracking_subdomain: data.trackingSubdomain,
  custom_return_path: data.customReturnPath,
});

/** Every event that touches the records carries all of them and the domain's status. */
const showRecords = ({ domainId, records, status }: { domainId: string; records: unknown; status: string }, context: BatchContext) =>
  context.update("domains", { id: domainId }, { records, status });

/** Domains as GET and list show them, records and their statuses included. Sends never read it: they fold the domain's stream. */
export const domainsProjection = {
  name: "domains",
  version: 1,
  tables: {
    domains: teamResourceTable({
      columns: {
        name: { type: "text" },
        status: { type: "text", ...holds<DomainStatus>() },
        region: { type: "text", ...holds<DomainRegion>() },
        tls: { type: "text", ...holds<TlsMode>() },
        capabilities: { type: "jsonb", ...holds<Capabilities>() },
        open_tracking: { type: "boolean" },
        click_tracking: { type: "boolean" },
        tracking_subdomain: { type: "text" },
        custom_return_path: { type: "text" },
        records: { type: "jsonb", ...holds<DnsRecord[]>() },
        created_at: { type: "timestamptz" },
      },
    }),
  },
  handlers: handlersOf<DomainEvent>({
    DomainCreated(data, context) {
      context.upsert("domains", {
        id: data.domainId,
        team_id: data.teamId,
        name: data.name,
        status: data.status,
        ...settingsColumns(data),
        records: data.records,
        created_at: data.createdAt,
      });
    },
    DomainUpdated(data, context) {
      context.update("domains", { id: data.domainId }, { ...settingsColumns(data), records: data.records, status: data.status });
    },
    DomainDkimKeyGenerated: showRecords,
    DomainVerificationStarted: showRecords,
    DomainRecordsChecked: showRecords,
    DomainVerificationFailed: showRecords,
    DomainDeleted(data, context) {
      context.delete("domains", { id: data.domainId });
    },
  }),
} satisfies Projection;
