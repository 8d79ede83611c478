import type { Kysely } from "kysely";
import type { Database } from "@tidings/postgres";
import type { apiKeysProjection } from "./apiKeys.js";
import type { auditProjection } from "./audit.js";
import type { automationRunsProjection } from "./automationRuns.js";
import type { automationsProjection } from "./automations.js";
import type { broadcastsProjection } from "./broadcasts.js";
import type { contactImportsProjection } from "./contactImports.js";
import type { contactPropertiesProjection } from "./contactProperties.js";
import type { contactsProjection } from "./contacts.js";
import type { domainClaimsProjection } from "./domainClaims.js";
import type { domainsProjection } from "./domains.js";
import type { emailClicksProjection } from "./emailClicks.js";
import type { emailMetricsProjection } from "./emailMetrics.js";
import type { emailsProjection } from "./emails.js";
import type { eventDefinitionsProjection } from "./eventDefinitions.js";
import type { inboundEmailsProjection } from "./inboundEmails.js";
import type { ColumnDefinition, ColumnType, Projection, TableDefinition } from "../engine/projection.js";
import type { segmentsProjection } from "./segments.js";
import type { sendingPausesProjection } from "./sendingPauses.js";
import type { streamsProjection } from "./streams.js";
import type { suppressionsProjection } from "./suppressions.js";
import type { teamsProjection } from "./teams.js";
import type { templatesProjection } from "./templates.js";
import type { topicsProjection } from "./topics.js";
import type { webhookDeliveriesProjection } from "./webhookDeliveries.js";
import type { webhooksProjection } from "./webhooks.js";

/**
 * What a query reads from a column of each type. `pg` reads int8 and numeric as text and PGlite reads
 * int8 as a (lossy) number, so a bigint is either until a query selects it `::text`, as positions are.
 */
interface ReadTypes {
  uuid: string;
  text: string;
  bigint: string | number;
  integer: number;
  numeric: string;
  boolean: boolean;
  timestamptz: Date;
  jsonb: unknown;
}

type Read<Column extends ColumnDefinition> = unknown extends Column["holds"]
  ? ReadTypes[Column["type"] & ColumnType]
  : Exclude<Column["holds"], undefined>;
type RowOf<Columns extends Record<string, ColumnDefinition>> = {
  [Name in keyof Columns]: Columns[Name] extends { nullable: true } ? Read<Columns[Name]> | null : Read<Columns[Name]>;
};
type TablesOf<P> =
  P extends Projection<infer Tables extends Record<string, TableDefinition>>
    ? { [Table in keyof Tables]: RowOf<Tables[Table]["columns"]> }
    : never;

/**
 * Every read-model table with the row type its projection's table definition says, for `Kysely<ReadModels>`:
 * a column a projection drops or retypes breaks the queries that read it at compile time.
 */
export type ReadModels = TablesOf<typeof apiKeysProjection> &
  TablesOf<typeof auditProjection> &
  TablesOf<typeof automationRunsProjection> &
  TablesOf<typeof automationsProjection> &
  TablesOf<typeof broadcastsProjection> &
  TablesOf<typeof contactImportsProjection> &
  TablesOf<typeof contactPropertiesProjection> &
  TablesOf<typeof contactsProjection> &
  TablesOf<typeof domainClaimsProjection> &
  TablesOf<typeof domainsProjection> &
  TablesOf<typeof emailClicksProjection> &
  TablesOf<typeof emailMetricsProjection> &
  TablesOf<typeof emailsProjection> &
  TablesOf<typeof eventDefinitionsProjection> &
  TablesOf<typeof inboundEmailsProjection> &
  TablesOf<typeof segmentsProjection> &
  TablesOf<typeof sendingPausesProjection> &
  TablesOf<typeof streamsProjection> &
  TablesOf<typeof suppressionsProjection> &
  TablesOf<typeof teamsProjection> &
  TablesOf<typeof templatesProjection> &
  TablesOf<typeof topicsProjection> &
  TablesOf<typeof webhookDeliveriesProjection> &
  TablesOf<typeof webhooksProjection>;

/** The read models of a database, typed: the views readers query, on whichever version is live. */
export const readModels = (database: Database): Kysely<ReadModels> => database.tables<ReadModels>();
