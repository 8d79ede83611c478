import type { ApiRoutes, TransportDeps } from "../app.js";
import type { ApiServices } from "../services.js";
import { apiKeyRoutes } from "./apiKeys.js";
import { auditRoutes } from "./audit.js";
import { domainClaimRoutes } from "./domainClaims.js";
import { domainRoutes } from "./domains.js";
import { emailRoutes } from "./emails.js";
import { emailMetricsRoutes } from "./emailMetrics.js";
import { emailShareRoutes } from "./emailShares.js";
import { sharedEmailRoutes } from "./sharedEmails.js";
import { receivingRoutes } from "./receiving.js";
import { healthRoutes } from "./health.js";
import { logsRoutes } from "./logs.js";
import { templateRoutes } from "./templates.js";
import { webhookRoutes } from "./webhooks.js";
import { contactPropertyRoutes } from "./contactProperties.js";
import { contactImportRoutes } from "./contactImports.js";
import { contactRoutes } from "./contacts.js";
import { contactMembershipRoutes } from "./contactMemberships.js";
import { segmentRoutes } from "./segments.js";
import { topicRoutes } from "./topics.js";
import { suppressionRoutes } from "./suppressions.js";
import { unsubscribeRoutes } from "./unsubscribe.js";
import { trackingRoutes } from "./tracking.js";
import { eventRoutes } from "./events.js";
import { automationRoutes } from "./automations.js";
import { broadcastRoutes } from "./broadcasts.js";
import { mcpRoutes } from "./mcp.js";

/** Routes that need no storage and no key: every app serves them. */
export function operationRoutes(deps: TransportDeps): ApiRoutes[] {
  return [healthRoutes(deps.readiness, deps.readinessTimeoutMs ?? 2000)];
}

/**
 * Every resource the API serves. A new resource adds its line here, and the route-wide tests (schemas,
 * OpenAPI, malformed input, the auth matrix) cover it.
 */
export function resourceRoutes(services: ApiServices): ApiRoutes[] {
  return [
    apiKeyRoutes(services),
    logsRoutes(services),
    templateRoutes(services),
    receivingRoutes(services),
    emailRoutes(services),
    emailMetricsRoutes(services),
    emailShareRoutes(services),
    sharedEmailRoutes(services),
    domainRoutes(services),
    domainClaimRoutes(services),
    webhookRoutes(services),
    contactPropertyRoutes(services),
    contactImportRoutes(services),
    contactRoutes(services),
    contactMembershipRoutes(services),
    segmentRoutes(services),
    topicRoutes(services),
    suppressionRoutes(services),
    unsubscribeRoutes(services),
    trackingRoutes(services),
    eventRoutes(services),
    automationRoutes(services),
    broadcastRoutes(services),
    auditRoutes(services),
    mcpRoutes(),
  ];
}
