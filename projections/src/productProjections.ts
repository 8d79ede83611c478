import { apiKeysProjection } from "./apiKeys.js";
import { broadcastsProjection } from "./broadcasts.js";
import { domainsProjection } from "./domains.js";
import { audienceProjection } from "./audience.js";
import { emailsProjection } from "./emails.js";
import type { Projection } from "./projection.js";
import { suppressionsProjection } from "./suppressions.js";
import { teamsProjection } from "./teams.js";
import { templatesProjection } from "./templates.js";
import { webhookDeliveriesProjection } from "./webhookDeliveries.js";
import { webhooksProjection } from "./webhooks.js";

/**
 * The read models the API serves from; `services.waitFor` (read-your-writes) waits on exactly these.
 * The admin catalogue (`streamsProjection`) is not one of them.
 */
export const productProjections: Projection[] = [
  teamsProjection,
  apiKeysProjection,
  templatesProjection,
  emailsProjection,
  suppressionsProjection,
  domainsProjection,
  webhooksProjection,
  webhookDeliveriesProjection,
  audienceProjection,
  broadcastsProjection,
];
