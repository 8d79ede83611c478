import { apiKeysProjection } from "./apiKeys.js";
import { auditProjection } from "./audit.js";
import { automationRunsProjection } from "./automationRuns.js";
import { automationsProjection } from "./automations.js";
import { eventDefinitionsProjection } from "./eventDefinitions.js";
import { broadcastsProjection } from "./broadcasts.js";
import { domainsProjection } from "./domains.js";
import { domainClaimsProjection } from "./domainClaims.js";
import { audienceProjection } from "./audience.js";
import { emailsProjection } from "./emails.js";
import { emailClicksProjection } from "./emailClicks.js";
import { emailMetricsProjection } from "./emailMetrics.js";
import { inboundEmailsProjection } from "./inboundEmails.js";
import type { Projection } from "../engine/projection.js";
import { sendingPausesProjection } from "./sendingPauses.js";
import { suppressionsProjection } from "./suppressions.js";
import { teamsProjection } from "./teams.js";
import { templatesProjection } from "./templates.js";
import { webhookDeliveriesProjection } from "./webhookDeliveries.js";
import { webhooksProjection } from "./webhooks.js";

/**
 * The read models the API serves from; `services.waitFor` (read-your-writes) waits on exactly these.
 * The admin catalogue (`streamsProjection`) is not one of them; the audit index is, because the audit
 * API serves from it.
 */
export const productProjections: Projection[] = [
  teamsProjection,
  apiKeysProjection,
  templatesProjection,
  emailsProjection,
  emailClicksProjection,
  emailMetricsProjection,
  inboundEmailsProjection,
  suppressionsProjection,
  sendingPausesProjection,
  domainsProjection,
  domainClaimsProjection,
  webhooksProjection,
  webhookDeliveriesProjection,
  audienceProjection,
  eventDefinitionsProjection,
  automationsProjection,
  automationRunsProjection,
  broadcastsProjection,
  auditProjection,
];
