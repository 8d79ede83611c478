export * from "./timers/index.js";
export { startSagas, type RunningSagas, type SagaDeps } from "./startSagas.js";
export { deliverEmail, startDeliverySaga, retryTimerKey, type DeliveryDeps } from "./delivery/delivery.js";
export {
  queueScheduledEmail,
  queueScheduledEmailDecider,
  sendTimerKey,
  startSchedulerSaga,
  syncSendTimer,
} from "./scheduling/scheduledEmails.js";
export { emailComposer, type BlobReader } from "./delivery/composeEmail.js";
export { deliveryDurable, sagaDurables } from "./durables.js";
export { runContactImport, startContactImportSaga, type ContactImportDeps } from "./imports/contactImports.js";
export { automationMigrations } from "./automations/migrations.js";
export { runIdOf } from "./automations/automationRunner.js";
export { stepEmailId } from "./automations/sendStepEmail.js";
export { createRecordLookup, type RecordLookup } from "./domains/domainRecordLookup.js";
