import { createLogger, type Logger } from "@tidings/core";
import { migrate, type Database } from "@tidings/postgres";
import { deadLetterOf, type DeadLetterSink } from "../delivery.js";
import { backoffFrom, deadLetterSubject, defaultBusRetryBackoffMs, type Bus, type Consumer } from "../port.js";
import { assertValidFilter, subjectMatches } from "../subject.js";
import { startInProcessConsumer, type InProcessConsumer } from "./consumer.js";
import { busMigrations } from "./migrations.js";
import { orderedPublisher } from "./publisher.js";
import { busChannel, pruneMessages, readDeadLetters, readDeadLetter, deleteDeadLetter, countPending, registerConsumer } from "./storage.js";

export interface InProcessBusOptions {
  logger?: Logger;
  /**
   * A msgId stays deduplicated for at least this long: a message is kept this long even once every
   * durable has acked it. Defaults to 5 minutes, the NATS adapter's duplicate window.
   */
  dedupWindowMs?: number;
  /** Messages older than this are deleted even if some durable never read them. Defaults to 7 days. */
  maxAgeMs?: number;
  /**
   * How often an idle consumer checks anyway, in case a wake-up from another process was lost. Defaults to
   * 1 s on PostgreSQL and 10 s on PGlite, which one process has to itself.
   */
  pollIntervalMs?: number;
  /** How often acked and expired messages are deleted. Defaults to 1 minute. */
  pruneIntervalMs?: number;
  /** Redelivery delays after a thrown handler, for consumers that set none (BUS_RETRY_BACKOFF_MS); the last step repeats. */
  retryBackoffMs?: readonly number[];
}

/**
 * The bus of the embedded mode (docs/architecture.md §2, §5), durable in the same database as everything else. It keeps
 * the JetStream semantics the sagas rely on: dedup by msgId, durables that start at the first message of
 * their filter and resume where they left off, ack wait, nak with delay, and dead letters. Publishes in
 * this process wake consumers at once; other processes on the same PostgreSQL are woken by NOTIFY.
 */
export async function createInProcessBus(database: Database, options: InProcessBusOptions = {}): Promise<Bus> {
  await migrate(database, "bus", busMigrations);
  const { db } = database;
  const logger = options.logger ?? createLogger("silent");
  // Embedded, the DATA_DIR lock keeps every other process out, so every publish wakes its consumers here and
  // none can be lost on the way; the poll is only a backstop, and at 1 s the twenty idle consumers' polls were
  // most of an idle process's queries (docs/operations.md, "Embedded: one process, one directory").
  const pollIntervalMs = options.pollIntervalMs ?? (database.kind === "pglite" ? 10_000 : 1_000);
  const backoffMs = backoffFrom(options.retryBackoffMs ?? defaultBusRetryBackoffMs);
  const retention = {
    dedupWindowMs: options.dedupWindowMs ?? 5 * 60_000,
    maxAgeMs: options.maxAgeMs ?? 7 * 24 * 3_600_000,
    deadLetterPrefix: deadLetterSubject(""),
  };
  const consumers = new Set<InProcessConsumer>();
  const wakeFor = (subject: string) => {
    for (const consumer of consumers) if (subjectMatches(consumer.filterSubject, subject)) consumer.wake();
  };
  const unlisten = await database.listen(busChannel, wakeFor);

  const insert = orderedPublisher(db, (subjects) => subjects.forEach(wakeFor));

  const prune = () => pruneMessages(db, retention).catch((err) => logger.error({ err }, "pruning bus messages failed"));
  const pruneTimer = setInterval(() => void prune(), options.pruneIntervalMs ?? 60_000);
  pruneTimer.unref();

  return {
    async publish(subject, data, { msgId, headers = {} }) {
      await insert({ subject, data, msgId, headers });
    },

    async consume(consumerOptions, handler): Promise<Consumer> {
      assertValidFilter(consumerOptions.filterSubject);
      const { durable } = consumerOptions;
      await registerConsumer(db, durable, consumerOptions.filterSubject);
      const deadLetter: DeadLetterSink = (delivery, error) => insert(deadLetterOf(durable, delivery, error));
      const consumer = startInProcessConsumer(db, { ...consumerOptions, backoffMs: consumerOptions.backoffMs ?? backoffMs }, handler, {
        deadLetter,
        logger,
        pollIntervalMs,
        // A DATA_DIR is one process's (its lock): no other process can take a message this one holds.
        sole: database.kind === "pglite",
      });
      consumers.add(consumer);
      return {
        async stop() {
          consumers.delete(consumer);
          await consumer.stop();
        },
      };
    },

    deadLetters: (durable, limit = 100) => readDeadLetters(db, deadLetterSubject(durable), limit),
    deadLetter: (durable, id) => readDeadLetter(db, deadLetterSubject(durable), id),
    removeDeadLetter: (durable, id) => deleteDeadLetter(db, deadLetterSubject(durable), id),

    pending: (durable) => countPending(db, durable),

    async close() {
      clearInterval(pruneTimer);
      await Promise.all([...consumers].map((consumer) => consumer.stop()));
      consumers.clear();
      await unlisten();
    },
  };
}
