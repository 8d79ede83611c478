import { deterministicId, formatTimestamp, parseTimestamp, type Logger, type Sealer } from "@tidings/core";
import {
  fold,
  isDeliveryDone,
  isDomainError,
  isLiveWebhook,
  webhookDecider,
  webhookDeliveryDecider,
  webhookDeliveryStream,
  webhookStream,
  type WebhookDeliveryCommand,
  type WebhookDeliveryEvent,
  type WebhookEvent,
} from "@tidings/domain";
import { WrongExpectedRevisionError, type EventStore } from "@tidings/eventstore";
import { DomainRejection, handleCommand } from "@tidings/commands";
import type { Timers } from "../timers/index.js";
import { postWebhook, type PostRequest, type PostOutcome } from "./postWebhook.js";
import { webhookHeaders } from "./signature.js";

export interface AttemptDeps {
  store: EventStore;
  timers: Timers;
  logger: Logger;
  /** Opens the sealed signing secrets (keyed by TIDINGS_SECRET, or embedded mode's). */
  sealer: Sealer;
  allowPrivate: boolean;
  scheduleMs: number[];
  post?: (request: PostRequest) => Promise<PostOutcome>;
}

export const deliveryTimerKey = (deliveryId: string) => `webhook-delivery:${deliveryId}`;
export type DeliveryTimerPayload = { kind: "webhook-delivery"; deliveryId: string; webhookId: string };
export const deliveryTimerPayload = (deliveryId: string, webhookId: string): DeliveryTimerPayload => ({ kind: "webhook-delivery", deliveryId, webhookId });

/** The id receivers see (`svix-id`/`webhook-id`): the delivery's, so every attempt and replay carries the same one. */
export const webhookMessageId = (deliveryId: string) => `msg_${deliveryId}`;

const metadataFor = (teamId: string, deliveryId: string) => ({ teamId, actor: "saga:webhooks", correlationId: deliveryId, occurredAt: formatTimestamp(new Date()) });

const instant = (text: string) => parseTimestamp(text) ?? new Date(text);

/**
 * One attempt of one delivery, if it is due: the delivery and its webhook are folded from their streams,
 * so a webhook disabled or deleted a moment ago is seen. Safe to run twice: the attempt number recorded
 * is the one after the last recorded, and a recorded one is not recorded again.
 */
export async function attemptDelivery(deps: AttemptDeps, deliveryId: string): Promise<void> {
  const { store, timers } = deps;
  const streamId = webhookDeliveryStream(deliveryId);
  const key = deliveryTimerKey(deliveryId);
  const recorded = await store.readStream(streamId);
  const state = fold(webhookDeliveryDecider, recorded.map((e) => ({ type: e.type, data: e.data }) as WebhookDeliveryEvent));
  if (state.status === "none" || isDeliveryDone(state)) return timers.cancel(key);
  const now = new Date();
  // A timer moved early (a redelivered event re-arms it) waits for the attempt the schedule says.
  if (state.nextAttemptAt !== null && instant(state.nextAttemptAt).getTime() > now.getTime() + 50)
    return timers.schedule(key, instant(state.nextAttemptAt), deliveryTimerPayload(deliveryId, state.webhookId));

  const revision = recorded[recorded.length - 1]!.revision;
  const record = async (command: WebhookDeliveryCommand) => {
    const decided = webhookDeliveryDecider.decide(command, state);
    if (isDomainError(decided)) throw new DomainRejection(decided);
    if (decided.length === 0) return decided;
    const metadata = metadataFor(state.teamId, deliveryId);
    try {
      await store.append(
        streamId,
        decided.map((event, i) => ({ id: deterministicId("webhook-delivery-outcome", deliveryId, String(revision), String(i)), type: event.type, data: event.data, metadata })),
        revision,
      );
    } catch (error) {
      if (!(error instanceof WrongExpectedRevisionError)) throw error;
      await handleCommand({ store, streamId, decider: webhookDeliveryDecider, command, metadata });
    }
    return decided;
  };

  const webhook = fold(webhookDecider, (await store.readStream(webhookStream(state.webhookId))).map((e) => ({ type: e.type, data: e.data }) as WebhookEvent));
  if (!isLiveWebhook(webhook) || webhook.status !== "enabled") {
    await record({ type: "AbandonWebhookDelivery", reason: isLiveWebhook(webhook) ? "webhook disabled" : "webhook deleted", now: formatTimestamp(now) });
    return timers.cancel(key);
  }

  const secrets = webhook.secrets
    .filter((s) => s.validUntil === null || instant(s.validUntil).getTime() > now.getTime())
    .map((s) => deps.sealer.openText(s.sealed));
  const body = JSON.stringify(state.payload);
  const headers = webhookHeaders(secrets, webhookMessageId(deliveryId), Math.floor(Date.now() / 1000), body);
  const outcome = await (deps.post ?? postWebhook)({ url: webhook.endpoint, headers, body, allowPrivate: deps.allowPrivate });

  const attempt: WebhookDeliveryCommand = { type: "RecordWebhookAttempt", attempt: state.attempts + 1, ...outcome, scheduleMs: deps.scheduleMs, now: new Date() };
  const preview = webhookDeliveryDecider.decide(attempt, state);
  const next = !isDomainError(preview) && preview[0]?.type === "WebhookDeliveryAttempted" ? preview[0].data.nextAttemptAt : null;
  // A retry's timer goes in before the failure is recorded: a crash between leaves a retry, never a
  // failed attempt nobody retries. A final outcome is recorded first, then its timer dropped.
  if (next !== null) await timers.schedule(key, new Date(next), deliveryTimerPayload(deliveryId, state.webhookId));
  await record(attempt);
  if (next === null) await timers.cancel(key);
  deps.logger.debug({ deliveryId, statusCode: outcome.statusCode, succeeded: outcome.succeeded }, "webhook attempted");
}
