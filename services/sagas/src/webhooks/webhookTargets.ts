import { fold, isLiveWebhook, webhookDecider, webhookStream, type SigningSecret, type WebhookEvent } from "@tidings/domain";
import type { EventStore, RecordedEvent } from "@tidings/eventstore";

/** Where and how a delivery is sent: its webhook's endpoint and signing secrets, still sealed. */
export interface WebhookTarget {
  endpoint: string;
  secrets: SigningSecret[];
}

/** The target of a webhook as its stream says; null for one disabled or deleted. */
export function targetOf(events: RecordedEvent[]): WebhookTarget | null {
  const webhook = fold(
    webhookDecider,
    events.map((e) => ({ type: e.type, data: e.data }) as WebhookEvent),
  );
  return isLiveWebhook(webhook) && webhook.status === "enabled" ? { endpoint: webhook.endpoint, secrets: webhook.secrets } : null;
}

export interface WebhookTargets {
  /** The webhook's target as read from its stream at most `maxAgeMs` ago. */
  get(webhookId: string): Promise<WebhookTarget | null>;
}

/**
 * Webhook targets read at most once per `maxAgeMs` per webhook, however many of its deliveries go out in
 * that time: a webhook disabled or deleted still stops receiving within `maxAgeMs`, and a busy endpoint
 * costs one read a second instead of one per delivery. Deliveries asking while a read is under way share
 * it only if it started after they asked, so none is answered from older than its own request.
 */
export function createWebhookTargets(store: EventStore, maxAgeMs: number, clockMs: () => number = Date.now): WebhookTargets {
  const read = new Map<string, { at: number; target: Promise<WebhookTarget | null> }>();
  return {
    get(webhookId) {
      const now = clockMs();
      const cached = read.get(webhookId);
      if (cached && now - cached.at < maxAgeMs) return cached.target;
      if (read.size > 10_000) read.clear();
      const target = store.readStream(webhookStream(webhookId)).then(targetOf);
      read.set(webhookId, { at: now, target });
      target.catch(() => read.delete(webhookId));
      return target;
    },
  };
}
