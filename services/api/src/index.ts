export * from "./app.js";
export * from "./errorTable.js";
export { errorBody, type ErrorBody } from "./plugins/errors.js";
export { isDocumentationRoute } from "./plugins/documentationRoutes.js";
export type { CatalogRoute } from "./plugins/routeCatalog.js";
export * from "./pagination.js";
export * from "./replies.js";
export * from "./shutdown.js";
export type { ReadinessChecks } from "./routes/health.js";
export * from "./services.js";
export { isPublicRoute, requireAuth, type RequestAuth } from "./plugins/auth.js";
export { apiKeyUsageMigrations, API_KEY_USAGE_COMPONENT } from "./plugins/apiKeyUsage.js";
export { bootstrapFirstKey, BOOTSTRAP_TEAM_NAME, type BootstrapResult } from "./bootstrap.js";
export { createApiKey, type CreateApiKeyInput, type CreatedApiKey } from "./handlers/createApiKey.js";
export { ensureTeam, teamIdForName } from "./handlers/ensureTeam.js";
export { createTeamKey, type CreatedTeamKey, type TeamKeyInput } from "./handlers/createTeamKey.js";
export { apiKeyPermissions, type ApiKeyPermission } from "@tidings/domain";
export { requestMetadata } from "./requestMetadata.js";
export { wireTimestamp } from "./wireTimestamp.js";
export { apiMigrations } from "./apiMigrations.js";
export { installRequestPolicies } from "./plugins/requestPolicies.js";
export { pruneRequestLogs } from "./plugins/requestLogsRetention.js";
export { pruneIdempotencyKeys } from "./plugins/idempotencyStore.js";
export { maxIdempotencyKeyLength } from "./plugins/idempotency.js";
export { databaseRateBuckets, memoryRateBuckets, type RateBuckets, type RateDecision } from "./plugins/rateLimitBuckets.js";
export { startInbound } from "./inbound/startInbound.js";
export type { InboundSmtpListener } from "./inbound/inboundSmtpServer.js";
export { startSubmission } from "./submission/startSubmission.js";
export type { SubmissionSmtpListener } from "./submission/submissionSmtpServer.js";
export { resourceReads, type ResourceRead } from "./audit/resourceReads.js";
export { resourceHistory, stateAt, upTo, type PointInTime, type ResourceHistory } from "./audit/resourceHistory.js";
export { findAuditRefs, auditKey, type AuditRef } from "./queries/audit.js";
export { reachCopies, type CopiesReached } from "./erasure/reachCopies.js";
export {
  dropDeadLetter,
  findDeadLetter,
  listDeadLetters,
  retryDeadLetter,
  type DeadLetterDeps,
  type ListedDeadLetter,
} from "./handlers/deadLetters.js";
export { createTemplate } from "./handlers/createTemplate.js";
export { publishTemplate } from "./handlers/changeTemplate.js";
export { createWebhook } from "./handlers/createWebhook.js";
export { updateWebhook } from "./handlers/changeWebhook.js";
export { createDomain, recordTargets, settingsOf } from "./handlers/createDomain.js";
export type { CreateDomainInput } from "./handlers/createDomain.js";
