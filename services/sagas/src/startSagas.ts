import { noMetrics, Slots, systemClock, type Clock, type Config, type Logger, type Metrics } from "@tidings/core";
import type { EventStore } from "@tidings/eventstore";
import type { Database } from "@tidings/postgres";
import { heldMessages } from "./heldMessages.js";
import { eventLoopGaps, instrumentBus, type Bus, type Consumer } from "@tidings/bus";
import { createCheckpointWaiter, sendingPauseOf } from "@tidings/projections";
import { createBlobStore, createStreamedBlobStore } from "@tidings/blobs";
import { bounceAddresses, createMailTransport, instrumentMailTransport, traceMailTransport } from "@tidings/mail";
import { emailComposer } from "./delivery/composeEmail.js";
import { startContactImportSaga } from "./imports/contactImports.js";
import { startBroadcastFanOutSaga } from "./broadcasts/fanOut.js";
import { TeamRates } from "./broadcasts/pacing.js";
import { canceledBroadcasts } from "./broadcasts/canceledBroadcasts.js";
import { queueScheduledBroadcast, startBroadcastScheduleSaga, type BroadcastTimerPayload } from "./broadcasts/schedule.js";
import { deliverEmail, deliveriesUnderWay, startDeliverySaga, type DeliveryDeps, type RetryTimerPayload } from "./delivery/delivery.js";
import { createRecordLookup } from "./domains/domainRecordLookup.js";
import { deliveryDomains } from "./delivery/deliveryDomain.js";
import {
  fireDomainCheck,
  startDomainVerificationSaga,
  type DomainCheckTimer,
  type DomainVerificationDeps,
} from "./domains/domainVerification.js";
import { suppressedRecipients } from "@tidings/sending";
import { createSubjectHasher, type DataKeys } from "@tidings/privacy";
import { queueScheduledEmail, startSchedulerSaga, type SendTimerPayload } from "./scheduling/scheduledEmails.js";
import { createTimers, startTimerPoller } from "./timers/index.js";
import { dispatchTimers } from "./timers/timerDispatch.js";
import { startWebhookSaga } from "./webhooks/webhookSaga.js";
import { fireRunTimer, startAutomationRunner } from "./automations/automationRunner.js";
import type { RunnerDeps, RunTimerPayload } from "./automations/advanceRun.js";
import { parkedRuns } from "./automations/parkedRuns.js";
import { readModelsAt } from "./readModelsAt.js";
import type { DeliveryTimerPayload } from "./webhooks/attemptDelivery.js";
import { retentionOf } from "./retention/retention.js";
import { startRetentionSweeps } from "./retention/retentionSweeps.js";
import { registerTimerMetrics } from "./timers/timerMetrics.js";
import { sagaDurables } from "./durables.js";
import { reputationReadModels, startReputationWatch } from "./reputation/reputationWatch.js";

export interface SagaDeps {
  store: EventStore;
  /** The read database: timers and blobs live here. */
  database: Database;
  bus: Bus;
  config: Config;
  logger: Logger;
  /** Opens sealed secrets (DKIM keys, webhook signing secrets): TIDINGS_SECRET, or the one embedded mode keeps in DATA_DIR. */
  secret?: string;
  /** The time the sagas record things at (default: the system's). */
  clock?: Clock;
  /** The key table: retention shreds its period keys, a delete-contact step a contact's keys (docs/privacy.md). */
  keys: DataKeys;
  /** What the sagas record into (docs/operations.md, "Metrics"); default: nothing. */
  metrics?: Metrics;
}

export interface RunningSagas {
  /**
   * Aborts the handlers' work at its next safe point and waits for it: what was under way is handed back
   * (a message nak'ed, a timer released) for the next process to take up from what its stream records.
   * An email already with the relay is waited for, so that its outcome is recorded.
   */
  stop(): Promise<void>;
  /** While `stop` runs: what is still under way. */
  unfinished(): string[];
}

/** The read models the sagas look things up in, each after waiting for it to reach the event at hand. */
const sagaReadModels = ["webhooks", "automations", "audience", "suppressions", ...reputationReadModels];

/** A broadcast's unsubscribe links keep working this long after the email is composed. */
const UNSUBSCRIBE_LINK_VALID_MS = 365 * 24 * 3600 * 1000;

/** What a timer's payload says to do when it fires. */
type TimerPayload =
  SendTimerPayload | RetryTimerPayload | DomainCheckTimer | DeliveryTimerPayload | RunTimerPayload | BroadcastTimerPayload;

/**
 * Starts every saga of this build and the timer poller behind them. Any number of saga processes may run
 * against the same stores: the consumers are durable and shared, and timers are claimed with SKIP LOCKED.
 */
export async function startSagas({
  store,
  database,
  bus: uninstrumentedBus,
  config,
  secret,
  logger,
  clock = systemClock,
  keys,
  metrics = noMetrics,
}: SagaDeps): Promise<RunningSagas> {
  const bus = instrumentBus(uninstrumentedBus, metrics, sagaDurables);
  registerTimerMetrics(database, metrics);
  // What takes work in (consumers, the timer poller, the webhook queues) stops all at once: one stopped
  // after another would meanwhile go on starting work, a timer's retry or a webhook's attempt. What they
  // use (the mail transport) closes after them.
  const takers: (() => Promise<void>)[] = [];
  const closers: (() => Promise<void>)[] = [];
  // Said as it happens: a stall this long may have sent held messages to another process (heldMessages.ts).
  // An embedded process has no other process to send them to.
  if (database.kind === "postgres") {
    eventLoopGaps.watch();
    const unwatch = eventLoopGaps.onGap(heldMessages.ackWaitMs / 2, (ms) =>
      logger.warn(
        { stoodStillMs: Math.round(ms) },
        "this process stood still: the bus may have handed messages it held to another process",
      ),
    );
    closers.push(async () => unwatch());
  }
  const stopFailed = (error: unknown) => logger.error({ err: error }, "saga stop failed");
  const stop = async () => {
    await Promise.all(takers.splice(0).map((s) => s().catch(stopFailed)));
    for (const s of closers.splice(0).reverse()) await s().catch(stopFailed);
  };
  const unfinished = () => {
    const emails = deliveriesUnderWay();
    return emails.length > 0
      ? [`emails under way, to be sent again with the same Message-ID if the relay took them: ${emails.join(", ")}`]
      : [];
  };
  try {
    const transport = traceMailTransport(
      instrumentMailTransport(
        createMailTransport(config, logger.child({ component: "mail" })),
        metrics,
        config.MAIL_TRANSPORT,
        config.MAIL_CONCURRENCY,
      ),
      config.MAIL_TRANSPORT,
    );
    closers.push(() => transport.close());
    const checkpoints = await createCheckpointWaiter(database, sagaReadModels);
    closers.push(() => checkpoints.close());
    const readModels = readModelsAt(checkpoints);
    const timers = createTimers(database);
    const openingSecret = secret ?? config.TIDINGS_SECRET;
    const deliveryDomain = deliveryDomains(store, openingSecret, config.TRACKING_BASE_URL);
    const bounces = openingSecret ? bounceAddresses(openingSecret) : undefined;
    // One lookup for every saga: lookups waiting at the same time share a query. It finds an address
    // erased while suppressed by its keyed hash, made under the api's secret (docs/privacy.md).
    const suppressed = suppressedRecipients(database, createSubjectHasher(openingSecret ?? ""));
    const deps: DeliveryDeps = {
      store,
      clock,
      transport,
      sending: new Slots(config.MAIL_CONCURRENCY),
      compose: emailComposer({
        blobs: createBlobStore(database),
        host: new URL(config.PUBLIC_URL).hostname,
        deliveryDomain,
        publicUrl: config.PUBLIC_URL,
        ...(openingSecret ? { secret: openingSecret } : {}),
      }),
      envelopePolicy: async (content) => {
        const domain = await deliveryDomain(content.domainId);
        return { tls: domain.tls, sender: domain.returnPath && bounces ? bounces.for(content.emailId, domain.returnPath) : null };
      },
      timers,
      suppressed,
      logger: logger.child({ saga: "delivery" }),
      retryBackoffMs: config.DELIVERY_RETRY_BACKOFF_MS,
      broadcastCanceled: canceledBroadcasts(store),
    };
    const domainChecks: DomainVerificationDeps = {
      store,
      clock,
      timers,
      lookup: createRecordLookup({ dnsServers: config.DNS_SERVERS }),
      logger: logger.child({ saga: "domain-verification" }),
      recheckMs: config.DOMAIN_RECHECK_MS,
      verifiedRecheckMs: config.DOMAIN_VERIFIED_RECHECK_MS,
    };
    const webhooks = await startWebhookSaga({
      bus,
      store,
      clock,
      database,
      timers,
      logger: logger.child({ saga: "webhooks" }),
      // Without a secret nothing the api sealed opens; only tests start sagas that way.
      secret: secret ?? config.TIDINGS_SECRET ?? "",
      allowPrivate: config.WEBHOOK_ALLOW_PRIVATE,
      scheduleMs: config.WEBHOOK_RETRY_SCHEDULE_MS,
      messageIdHost: new URL(config.PUBLIC_URL).hostname,
      readModelsAt: readModels,
      metrics,
    });
    takers.push(() => webhooks.stop());
    const automations: RunnerDeps = {
      store,
      keys,
      hashSubject: createSubjectHasher(openingSecret ?? ""),
      timers,
      parked: parkedRuns(database),
      clock,
      allowUnverifiedFrom: config.TIDINGS_ALLOW_UNVERIFIED_FROM,
      suppressed,
      paused: sendingPauseOf(database),
      logger: logger.child({ saga: "automations" }),
    };
    const poller = startTimerPoller({
      database,
      leaseMs: config.TIMER_LEASE_MS,
      logger: logger.child({ component: "timers" }),
      fire: dispatchTimers<TimerPayload>({
        "send-scheduled": (payload) => queueScheduledEmail(store, clock, payload.emailId),
        "retry-delivery": (payload, timer, stopping) => deliverEmail(deps, payload.emailId, stopping, timer.stillHeld),
        "check-domain": (payload, timer) => fireDomainCheck(domainChecks, payload, timer.dueAt),
        "webhook-delivery": (payload) => webhooks.fire(payload),
        "automation-step": (payload) => fireRunTimer(automations, payload),
        "send-broadcast": (payload) => queueScheduledBroadcast(store, clock, payload.broadcastId),
      }),
    });
    takers.push(() => poller.stop());
    const consumers: Consumer[] = [
      // Twice the sends: with one slot per send, an email's read, compose and record held a connection's
      // slot too, and 16 of them delivered under 200 emails/s on a busy machine (bench/events backed up by
      // seconds); now the next email is ready when a send ends.
      ...(await startDeliverySaga({ bus, deps, concurrency: 2 * config.MAIL_CONCURRENCY })),
      ...(await startSchedulerSaga({ bus, store, timers })),
      await startDomainVerificationSaga({ bus, deps: domainChecks }),
      // A run's steps mostly wait on round trips: 16 runs at once held 200 events/s about 4 s behind in
      // bench/events, 64 under one; the lookups of a burst go as one statement however many ask.
      ...(await startAutomationRunner({ bus, database, readModelsAt: readModels, deps: automations, concurrency: 64 })),
      await startContactImportSaga({
        bus,
        deps: {
          store,
          blobs: createStreamedBlobStore(database),
          clock,
          logger: logger.child({ saga: "contact-import" }),
          checkpointRows: 500,
          rowsInFlight: config.CONTACT_IMPORT_ROWS_IN_FLIGHT,
          rowsCounted: metrics.counter({
            name: "tidings_contact_import_rows_total",
            help: "Rows of contact imports applied, by outcome: created, updated, skipped, failed",
            labels: ["outcome"],
          }),
        },
      }),
      ...(await startBroadcastScheduleSaga({ bus, store, timers })),
      ...(await startReputationWatch({
        bus,
        deps: {
          store,
          database,
          clock,
          readModelsAt: readModels,
          thresholds: {
            bounceRate: config.REPUTATION_BOUNCE_RATE_PAUSE,
            complaintRate: config.REPUTATION_COMPLAINT_RATE_PAUSE,
            minSends: config.REPUTATION_MIN_SENDS,
          },
          windowHours: config.REPUTATION_WINDOW_HOURS,
        },
      })),
      await startBroadcastFanOutSaga({
        bus,
        deps: {
          store,
          clock,
          database,
          logger: logger.child({ saga: "broadcast-fan-out" }),
          links: {
            publicUrl: config.PUBLIC_URL,
            secret: secret ?? config.TIDINGS_SECRET ?? "",
            mailHost: config.MAIL_HOST ?? new URL(config.PUBLIC_URL).hostname,
            validForMs: UNSUBSCRIBE_LINK_VALID_MS,
          },
          suppressed,
          rates: new TeamRates(),
          batchSize: 500,
          emailsInFlight: config.BROADCAST_EMAILS_IN_FLIGHT,
          defaultRate: config.BROADCAST_EMAILS_PER_SECOND,
          appendsInFlight: 128,
          readModelsAt: readModels,
          progress: metrics.counter({
            name: "tidings_broadcast_emails_total",
            help: "Broadcast recipients by stage: planned (in a recorded batch), queued (an email handed to delivery)",
            labels: ["stage"],
          }),
        },
      }),
    ];
    for (const consumer of consumers) takers.push(() => consumer.stop());
    const retention = { database, store, keys, importFiles: createStreamedBlobStore(database), clock, retention: retentionOf(config) };
    const sweeps = startRetentionSweeps(retention, config.RETENTION_SWEEP_INTERVAL_MS, logger.child({ component: "retention" }));
    takers.push(() => sweeps.stop());
    return { stop, unfinished };
  } catch (error) {
    await stop();
    throw error;
  }
}
