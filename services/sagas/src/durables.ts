import { webhookEventCategories } from "@tidings/domain";

/**
 * The durable consumer names of every saga: their progress lives under these names on the bus, and
 * `tidings status` lists each one's dead letters (docs/architecture.md §5).
 */
export const deliveryDurable = "delivery";
/** The delivery of the emails the broadcast fan-out queues, in their own lane (`bulkLane`). */
export const deliveryBulkDurable = "delivery-bulk";
/**
 * The bus lane of a broadcast's emails (the `lane` of their EmailQueued's metadata, docs/events.md): they
 * have a delivery consumer of their own, so a transactional email is never queued behind them.
 */
export const bulkLane = "bulk";
export const scheduledEmailEvents = ["EmailScheduled", "EmailRescheduled", "EmailCanceled"] as const;
export const schedulerDurable = (type: (typeof scheduledEmailEvents)[number]) => `scheduler-${type}`;

export const contactImportDurable = "contact-import";

export const domainVerificationDurable = "domain-verification";

/** The automation runner: received custom events, and changes to automations. */
export const automationEventsDurable = "automation-events";
export const automationChangesDurable = "automation-changes";
export const broadcastFanOutDurable = "broadcast-fan-out";
export const broadcastScheduleEvents = ["BroadcastScheduled", "BroadcastUnscheduled"] as const;
export const broadcastScheduleDurable = (type: (typeof broadcastScheduleEvents)[number]) => `broadcast-schedule-${type}`;

/** The reputation watcher: the outcomes that can raise a team's or a domain's rate (README, "Reputation guardrails"). */
export const reputationEvents = ["EmailBounced", "EmailComplained"] as const;
export const reputationDurable = (type: (typeof reputationEvents)[number]) => `reputation-${type}`;

/** The webhook saga: one fan-out consumer per stream category with webhook types, and one for replays. */
export const webhookFanOutDurable = (streamCategory: string) => `webhooks-${streamCategory}`;
export const webhookReplayDurable = "webhooks-replays";
const webhookDurables = webhookEventCategories
  .filter((c) => Object.keys(c.payloads).length > 0)
  .map((c) => webhookFanOutDurable(c.streamCategory));

export const sagaDurables: string[] = [
  deliveryDurable,
  deliveryBulkDurable,
  ...scheduledEmailEvents.map(schedulerDurable),
  ...webhookDurables,
  webhookReplayDurable,
  domainVerificationDurable,
  contactImportDurable,
  automationEventsDurable,
  automationChangesDurable,
  broadcastFanOutDurable,
  ...broadcastScheduleEvents.map(broadcastScheduleDurable),
  ...reputationEvents.map(reputationDurable),
];
