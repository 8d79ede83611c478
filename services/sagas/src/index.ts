export * from "./timers/index.js";
export { startSagas, type RunningSagas, type SagaDeps } from "./startSagas.js";
export { deliverEmail, startDeliverySaga, retryTimerKey, type DeliveryDeps } from "./delivery.js";
export { queueScheduledEmail, queueScheduledEmailDecider, sendTimerKey, startSchedulerSaga, syncSendTimer } from "./scheduledEmails.js";
export { emailComposer, type BlobReader } from "./composeEmail.js";
export { sagaDurables } from "./durables.js";
export { runContactImport, startContactImportSaga, type ContactImportDeps } from "./contactImports.js";
