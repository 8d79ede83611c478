export * from "./timers/index.js";
export { queueScheduledEmail, queueScheduledEmailDecider, sendTimerKey, startSchedulerSaga, syncSendTimer } from "./scheduledEmails.js";
