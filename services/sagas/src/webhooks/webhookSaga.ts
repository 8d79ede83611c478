import {
  activeTraceHeaders,
  createSealer,
  deterministicId,
  formatTimestamp,
  newId,
  noMetrics,
  type Logger,
  type Clock,
  type Metrics,
} from "@tidings/core";
import {
  isDomainError,
  WEBHOOK_SECRET_SEAL_PURPOSE,
  webhookDeliveryDecider,
  webhookDeliveryStream,
  webhookEventCategories,
  type LiveWebhookDelivery,
  type SourceEvent,
  typesProducedBy,
  type WebhookEventCategory,
} from "@tidings/domain";
import { WrongExpectedRevisionError, type EventStore, type RecordedEvent } from "@tidings/eventstore";
import type { Database } from "@tidings/postgres";
import { DomainRejection } from "@tidings/commands";
import { consumeEvents, eventSubject, fromForwardedEvent, type Bus, type Consumer, type ForwardedEvent } from "@tidings/bus";
import { webhookFanOutDurable, webhookReplayDurable } from "../durables.js";
import type { Timers } from "../timers/index.js";
import { attemptDelivery, type AttemptDeps, type DeliveryTimerPayload, type KnownDelivery } from "./attemptDelivery.js";
import { startSweeper } from "./sweeper.js";
import { createEndpointQueues } from "./endpointQueues.js";
import { createAttemptLeases } from "./attemptLeases.js";
import { rememberingOpenedSecrets } from "./openedSecrets.js";
import { createWebhookTargets } from "./webhookTargets.js";
import { measuredPost } from "./measuredPost.js";
import { tracedPost } from "./tracedPost.js";
import { postWebhook } from "./postWebhook.js";
import { createSubscriptions, type SubscribedWebhook } from "./subscriptions.js";
import type { ReadModelsAt } from "../readModelsAt.js";
import { reactingTo, sagaMetadata } from "../sagaMetadata.js";

export interface WebhookSagaOptions {
  bus: Bus;
  store: EventStore;
  clock: Clock;
  database: Database;
  timers: Timers;
  logger: Logger;
  secret: string;
  allowPrivate: boolean;
  scheduleMs: number[];
  /** Waits for the webhooks read model to hold every webhook created before the event being fanned out. */
  readModelsAt: ReadModelsAt;
  /** The host of email Message-IDs (`<id@host>`), for `message_id` in payloads. */
  messageIdHost: string;
  /** Requests to one endpoint at once, per process. */
  perEndpoint?: number;
  /** How often the read model is swept for deliveries left behind (default 10 s). */
  sweepIntervalMs?: number;
  /** How long a delivery may sit pending, or past its retry time, before a sweep takes it up (default 60 s). */
  staleMs?: number;
  /** Where attempts are counted and timed (default: nowhere). */
  metrics?: Metrics;
}

export interface WebhookSaga {
  /** Fires a delivery's timer: a retry due, or a delivery a sweep found left behind. */
  fire(payload: DeliveryTimerPayload): Promise<void>;
  stop(): Promise<void>;
}

/**
 * The webhook saga (docs/architecture.md §5): for each event with a webhook type, one delivery per subscribed webhook,
 * keyed by (webhook, event id) so it is made once; then attempts on the retry schedule, each recorded.
 * One durable consumer per stream category with payloads (NATS 2.9 takes one filter each), and one for
 * replays. Attempts run in per-endpoint queues, so one endpoint's slowness is its own. A first attempt
 * costs no timer: a delivery a process left behind (it died, or stopped with a queue) still shows pending
 * in the read model, and the sweep hands it to a timer, which one process claims.
 */
export async function startWebhookSaga(options: WebhookSagaOptions): Promise<WebhookSaga> {
  const { bus, store, database, timers, logger } = options;
  const staleMs = options.staleMs ?? 60_000;
  const stopping = new AbortController();
  const deps: AttemptDeps = {
    store,
    clock: options.clock,
    timers,
    logger,
    sealer: rememberingOpenedSecrets(createSealer(options.secret, WEBHOOK_SECRET_SEAL_PURPOSE)),
    allowPrivate: options.allowPrivate,
    scheduleMs: options.scheduleMs,
    leases: createAttemptLeases(database),
    knownForMs: staleMs / 2,
    targetForMs: Math.min(1_000, staleMs / 2),
    targets: createWebhookTargets(store, Math.min(1_000, staleMs / 2)),
    post: tracedPost(measuredPost(postWebhook, options.metrics ?? noMetrics)),
    stopping: stopping.signal,
  };
  const queues = createEndpointQueues<KnownDelivery>({
    perEndpoint: options.perEndpoint ?? 32,
    run: (deliveryId, webhookId, known, leave, stopping) =>
      attemptDelivery(deps, deliveryId, webhookId, { known, answered: leave, stopping }),
    onError: (error, deliveryId) =>
      logger.error({ err: error, deliveryId }, "webhook attempt failed; a timer or a sweep takes it up again"),
  });
  const subscriptions = createSubscriptions(database);
  const context = { messageIdOf: (emailId: string) => `<${emailId}@${options.messageIdHost}>` };

  const createDelivery = async (
    event: RecordedEvent,
    teamId: string,
    payload: LiveWebhookDelivery["payload"],
    webhook: SubscribedWebhook,
    at: number,
  ) => {
    const deliveryId = deterministicId("webhook-delivery", webhook.id, event.id);
    const decided = webhookDeliveryDecider.decide(
      {
        type: "CreateWebhookDelivery",
        deliveryId,
        webhookId: webhook.id,
        teamId,
        eventId: event.id,
        payload,
        now: formatTimestamp(options.clock.now()),
      },
      webhookDeliveryDecider.initialState,
    );
    if (isDomainError(decided)) throw new DomainRejection(decided);
    const chain = reactingTo(event);
    const metadata = sagaMetadata(options.clock, "webhooks", { teamId, ...chain });
    // A fresh event id: the same id again would pass as a retry of this append, and this process would
    // take a delivery made earlier for new. "no_stream" is what makes the delivery once.
    const events = decided.map((e) => ({ id: newId(), type: e.type, data: e.data, metadata }));
    try {
      const appended = await store.append(webhookDeliveryStream(deliveryId), events, "no_stream");
      const state = decided.reduce(webhookDeliveryDecider.evolve, webhookDeliveryDecider.initialState) as LiveWebhookDelivery;
      queues.enqueue(webhook.id, deliveryId, {
        at,
        state,
        revision: appended.nextExpectedRevision,
        chain: { correlationId: chain.correlationId, causationId: events[events.length - 1]!.id },
        traceparent: activeTraceHeaders().traceparent,
        target: { endpoint: webhook.endpoint, secrets: webhook.secrets },
      });
    } catch (error) {
      if (!(error instanceof WrongExpectedRevisionError)) throw error;
      // Made by an earlier delivery of this message: it is read again before anything is sent.
      queues.enqueue(webhook.id, deliveryId);
    }
  };

  const fanOut = async (category: WebhookEventCategory, event: RecordedEvent) => {
    const build = category.payloads[event.type];
    const teamId = event.metadata.teamId;
    if (!build || !teamId) return;
    // Asked before the history is read: most events of a team without webhooks (or not subscribed to
    // this category) cost one shared lookup, not a read of their stream. The read model must first hold
    // every webhook created before the event, or a webhook created a moment earlier would miss it.
    await options.readModelsAt(["webhooks"], event.position);
    const team = await subscriptions.forEvent(teamId, event.position);
    if (!team.listensToAny(typesProducedBy(category))) return;
    const history = await store.readStream(event.streamId, { maxCount: Number(event.revision) + 1 });
    const payload = build(
      { type: event.type, data: event.data, metadata: event.metadata },
      history.map((e): SourceEvent => ({ type: e.type, data: e.data })),
      context,
    );
    if (!payload) return;
    await Promise.all(team.due(payload.type).map((webhook) => createDelivery(event, teamId, payload, webhook, team.at)));
  };

  const consumers: Consumer[] = [];
  try {
    for (const category of webhookEventCategories.filter((c) => Object.keys(c.payloads).length > 0))
      consumers.push(
        await bus.consume(
          {
            durable: webhookFanOutDurable(category.streamCategory),
            filterSubject: eventSubject(category.streamCategory, "*"),
            maxDeliver: 10,
            concurrency: 256,
          },
          (message) => fanOut(category, fromForwardedEvent(message.data as ForwardedEvent)),
        ),
      );
    consumers.push(
      await consumeEvents(
        bus,
        { durable: webhookReplayDurable, category: "webhookdelivery", type: "WebhookDeliveryReplayed", maxDeliver: 10, concurrency: 4 },
        async ({ data }) => {
          queues.enqueue(data.webhookId, data.deliveryId);
        },
      ),
    );
  } catch (error) {
    await Promise.all(consumers.map((c) => c.stop()));
    throw error;
  }

  const sweeper = startSweeper({ database, timers, logger, holds: queues.holds, intervalMs: options.sweepIntervalMs ?? 10_000, staleMs });
  return {
    fire: async (payload) => queues.enqueue(payload.webhookId, payload.deliveryId),
    async stop() {
      stopping.abort();
      await sweeper.stop();
      await Promise.all(consumers.map((c) => c.stop()));
      await queues.stop();
    },
  };
}
