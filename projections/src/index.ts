export {
  holds,
  type BatchContext,
  type ColumnDefinition,
  type ColumnType,
  type EventHandler,
  type MergeRule,
  type Projection,
  type Row,
  type TableDefinition,
} from "./engine/projection.js";
export { readModels, type ReadModels } from "./readmodels/readModels.js";
export { startProjections, type ProjectionRunnerStatus, type RunningProjections, type StartProjectionsOptions } from "./engine/runner.js";
export { createCheckpointWaiter, type CheckpointWaiter, type CheckpointWaiterOptions } from "./engine/checkpointWaiter.js";
export {
  CHECKPOINT_CHANNEL,
  checkpointMigrations,
  ensureCheckpointTable,
  readCheckpoints,
  type Checkpoint,
  type CheckpointState,
} from "./engine/checkpoints.js";
export { projectionStatus, type ProjectionStatus, type ProjectionStatusOptions } from "./engine/status.js";
export { registerProjectionLagMetrics, lagEventsCounted } from "./engine/lagMetrics.js";
export { projectionLagCheck, ProjectionsBehindError } from "./engine/lagCheck.js";
export { rebuildProjection, type RebuildOptions, type RebuildResult } from "./engine/rebuild.js";
export { ProjectionUnavailableError } from "./engine/projectionUnavailable.js";
export { verifyProjection, type VerifyOptions, type VerifyProgress, type VerifyResult } from "./engine/verify.js";
export type { RowDifference } from "./engine/verifyCompare.js";
export type { ProjectionOperation } from "./engine/operationLog.js";
export type { RebuildProgress } from "./engine/shadowBuild.js";
export { readModelChecksum, type ReadModelChecksum } from "./engine/checksum.js";
export { physicalTable } from "./engine/readModelTables.js";
export { streamsProjection } from "./readmodels/streams.js";
export { auditProjection } from "./readmodels/audit.js";
export { emailAddressIn, eventTeamId, isUuid, type AuditRefKind } from "./readmodels/auditNames.js";
export { teamsProjection } from "./readmodels/teams.js";
export { apiKeysProjection } from "./readmodels/apiKeys.js";
export { templatesProjection } from "./readmodels/templates.js";
export { eventDefinitionsProjection } from "./readmodels/eventDefinitions.js";
export { automationsProjection } from "./readmodels/automations.js";
export { automationRunsProjection } from "./readmodels/automationRuns.js";
export { domainsProjection } from "./readmodels/domains.js";
export { domainClaimsProjection } from "./readmodels/domainClaims.js";
export { emailSearchText, emailsProjection } from "./readmodels/emails.js";
export { emailClicksProjection } from "./readmodels/emailClicks.js";
export { emailMetricsProjection, emailMetricCounters, NO_DIMENSION, type EmailMetricCounter } from "./readmodels/emailMetrics.js";
export { quarterHour, QUARTER_HOUR_MS } from "./readmodels/quarterHour.js";
export { inboundEmailsProjection } from "./readmodels/inboundEmails.js";
export { broadcastsProjection } from "./readmodels/broadcasts.js";
export { webhooksProjection } from "./readmodels/webhooks.js";
export { webhookDeliveriesProjection } from "./readmodels/webhookDeliveries.js";
export { erasedSuppressionEmail, suppressionIdOf, suppressionsProjection } from "./readmodels/suppressions.js";
export { sendingPausesProjection } from "./readmodels/sendingPauses.js";
export * from "./readmodels/reputationReads.js";
export { contactPropertiesProjection } from "./readmodels/contactProperties.js";
export { contactSearchText, contactsProjection } from "./readmodels/contacts.js";
export { segmentsProjection } from "./readmodels/segments.js";
export { topicsProjection } from "./readmodels/topics.js";
export { audienceProjection } from "./readmodels/audience.js";
export { contactImportsProjection } from "./readmodels/contactImports.js";
export { productProjections } from "./readmodels/productProjections.js";
export { replayInScratch } from "./engine/replay.js";
export { blobsOfSubject } from "./privacy/subjectBlobs.js";
export { scrubErasedSubject } from "./privacy/scrubErasedSubject.js";
export { scrubExpiredContent } from "./privacy/scrubExpiredContent.js";
export type { ErasedSubject } from "./privacy/erasedSubject.js";
export { registerEmailOutcomeMetrics } from "./readmodels/emailOutcomeMetrics.js";
