export { holds, type BatchContext, type ColumnDefinition, type ColumnType, type EventHandler, type MergeRule, type Projection, type Row, type TableDefinition } from "./projection.js";
export { readModels, type ReadModels } from "./readModels.js";
export { startProjections, type ProjectionRunnerStatus, type RunningProjections, type StartProjectionsOptions } from "./runner.js";
export { createCheckpointWaiter, type CheckpointWaiter, type CheckpointWaiterOptions } from "./checkpointWaiter.js";
export {
  CHECKPOINT_CHANNEL,
  checkpointMigrations,
  ensureCheckpointTable,
  readCheckpoints,
  type Checkpoint,
  type CheckpointState,
} from "./checkpoints.js";
export { projectionStatus, type ProjectionStatus, type ProjectionStatusOptions } from "./status.js";
export { rebuildProjection, type RebuildOptions, type RebuildResult } from "./rebuild.js";
export type { RebuildProgress } from "./shadowBuild.js";
export { readModelChecksum, type ReadModelChecksum } from "./checksum.js";
export { physicalTable } from "./readModelTables.js";
export { streamsProjection } from "./streams.js";
export { teamsProjection } from "./teams.js";
export { apiKeysProjection } from "./apiKeys.js";
export { templatesProjection } from "./templates.js";
export { eventDefinitionsProjection } from "./eventDefinitions.js";
export { automationsProjection } from "./automations.js";
export { automationRunsProjection } from "./automationRuns.js";
export { domainsProjection } from "./domains.js";
export { emailsProjection } from "./emails.js";
export { emailClicksProjection } from "./emailClicks.js";
export { inboundEmailsProjection } from "./inboundEmails.js";
export { broadcastsProjection } from "./broadcasts.js";
export { webhooksProjection } from "./webhooks.js";
export { webhookDeliveriesProjection } from "./webhookDeliveries.js";
export { suppressionIdOf, suppressionsProjection } from "./suppressions.js";
export { contactPropertiesProjection } from "./contactProperties.js";
export { contactsProjection } from "./contacts.js";
export { segmentsProjection } from "./segments.js";
export { topicsProjection } from "./topics.js";
export { audienceProjection } from "./audience.js";
export { contactImportsProjection } from "./contactImports.js";
export { productProjections } from "./productProjections.js";
