import { systemClock, type Config, type Logger } from "@tidings/core";
import type { EventStore } from "@tidings/eventstore";
import type { Database } from "@tidings/postgres";
import type { Bus, Consumer } from "@tidings/bus";
import { createBlobStore, createStreamedBlobStore } from "@tidings/blobs";
import { createMailTransport } from "@tidings/mail";
import { emailComposer } from "./composeEmail.js";
import { startContactImportSaga } from "./contactImports.js";
import { deliverEmail, startDeliverySaga, type DeliveryDeps } from "./delivery.js";
import { suppressionList } from "./suppressionList.js";
import { queueScheduledEmail, startSchedulerSaga } from "./scheduledEmails.js";
import { createTimers, startTimerPoller, type DueTimer } from "./timers/index.js";

export interface SagaDeps {
  store: EventStore;
  /** The read database: timers and blobs live here. */
  database: Database;
  bus: Bus;
  config: Config;
  logger: Logger;
}

export interface RunningSagas {
  stop(): Promise<void>;
}

/** What a timer's payload says to do when it fires. */
type TimerPayload = { kind: "send-scheduled"; emailId: string } | { kind: "retry-delivery"; emailId: string };

/**
 * Starts every saga of this build and the timer poller behind them. Any number of saga processes may run
 * against the same stores: the consumers are durable and shared, and timers are claimed with SKIP LOCKED.
 */
export async function startSagas({ store, database, bus, config, logger }: SagaDeps): Promise<RunningSagas> {
  const stops: (() => Promise<void>)[] = [];
  const stop = async () => {
    for (const s of stops.splice(0).reverse()) await s().catch((error) => logger.error({ err: error }, "saga stop failed"));
  };
  try {
    const transport = createMailTransport(config, logger.child({ component: "mail" }));
    stops.push(() => transport.close());
    const timers = createTimers(database);
    const deps: DeliveryDeps = {
      store,
      transport,
      compose: emailComposer({ blobs: createBlobStore(database), host: new URL(config.PUBLIC_URL).hostname }),
      timers,
      suppressed: suppressionList(database),
      logger: logger.child({ saga: "delivery" }),
      retryBackoffMs: config.DELIVERY_RETRY_BACKOFF_MS,
    };
    const poller = startTimerPoller({
      database,
      logger: logger.child({ component: "timers" }),
      async fire(timer: DueTimer) {
        const payload = timer.payload as TimerPayload;
        if (payload.kind === "send-scheduled") await queueScheduledEmail(store, payload.emailId);
        else await deliverEmail(deps, payload.emailId);
      },
    });
    stops.push(() => poller.stop());
    const consumers: Consumer[] = [
      await startDeliverySaga({ bus, deps, concurrency: config.MAIL_CONCURRENCY }),
      ...(await startSchedulerSaga({ bus, store, timers })),
      await startContactImportSaga({
        bus,
        deps: { store, blobs: createStreamedBlobStore(database), clock: systemClock, logger: logger.child({ saga: "contact-import" }), checkpointRows: 500 },
      }),
    ];
    stops.push(() => Promise.all(consumers.map((c) => c.stop())).then(() => {}));
    return { stop };
  } catch (error) {
    await stop();
    throw error;
  }
}
