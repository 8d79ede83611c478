import { createLogger, type Logger } from "@tidings/core";
import { subscriptionBatches, type EventStore, type RecordedEvent, type Subscription } from "@tidings/eventstore";
import { migrate, type Database } from "@tidings/postgres";
import { forwardedEventHeaders, forwardedEventSubject, toForwardedEvent } from "./forwardedEvent.js";
import { forwarderMigrations, pacedCheckpoint, readForwarderCheckpoint } from "./forwarderCheckpoint.js";
import { interruptibleWait } from "./interruptibleWait.js";
import type { Bus } from "./port.js";

export interface ForwarderOptions {
  store: EventStore;
  bus: Bus;
  /** Holds the checkpoint and the lock that keeps one instance per name. */
  database: Database;
  /** Defaults to "forwarder". */
  name?: string;
  logger?: Logger;
  /** Most events published before a checkpoint is written. Defaults to 256. */
  batchSize?: number;
  /** How long a standby waits before trying the lock again, and the pause after a failure. Defaults to 2 s. */
  retryDelayMs?: number;
  /** Longest the checkpoint lags what is published (see pacedCheckpoint). Defaults to 250 ms. */
  checkpointEveryMs?: number;
}

export interface Forwarder {
  /** True while this instance holds the lock and forwards; a second instance of the same name waits. */
  readonly leading: boolean;
  stop(): Promise<void>;
}

class ForwarderFencedError extends Error {
  constructor(name: string) {
    super(`forwarder ${name}: the checkpoint moved under it`);
  }
}

/**
 * Publishes every event of `$all` to `events.<category>.<Type>` (docs/architecture.md §1, §5). It publishes a batch,
 * then writes its checkpoint. A crash in between publishes that batch again after the restart, with the
 * same msgIds (the event ids), so the bus drops the repeats within its dedup window.
 */
export async function startForwarder(options: ForwarderOptions): Promise<Forwarder> {
  const { store, bus, database } = options;
  const name = options.name ?? "forwarder";
  const logger = options.logger ?? createLogger("silent");
  const batchSize = options.batchSize ?? 256;
  const retryDelayMs = options.retryDelayMs ?? 2_000;
  const checkpointEveryMs = options.checkpointEveryMs ?? 250;
  await migrate(database, "forwarder", forwarderMigrations);

  let stopped = false;
  let leading = false;
  let subscription: Subscription | undefined;
  const pause = interruptibleWait(() => stopped);

  const publish = (event: RecordedEvent) =>
    bus.publish(forwardedEventSubject(event), toForwardedEvent(event), { msgId: event.id, headers: forwardedEventHeaders(event) });

  /** Forwards from the checkpoint until the subscription ends (on stop) or something fails. */
  const forward = async () => {
    const at = await readForwarderCheckpoint(database.db, name);
    const checkpoint = pacedCheckpoint(database.db, name, at, checkpointEveryMs);
    // Only whole batches reach the checkpoint, so what it holds back is published, even after a failure;
    // losing the checkpoint to another forwarder outweighs the failure that ended the subscription.
    const flush = async () => {
      if (!(await checkpoint.flush())) throw new ForwarderFencedError(name);
    };
    subscription = store.subscribeToAll({ after: at });
    try {
      // Batches of what the subscription already holds: publishing never waits for the next append.
      for await (const batch of subscriptionBatches(subscription, batchSize, 0)) {
        await Promise.all(batch.map(publish));
        if (!(await checkpoint.reached(batch[batch.length - 1]!.position))) throw new ForwarderFencedError(name);
      }
    } catch (error) {
      await flush();
      throw error;
    }
    await flush();
  };

  const lead = async () => {
    while (!stopped) {
      try {
        await forward();
        // The subscription ended without a stop: start again, but not in a tight loop.
        await pause.wait(retryDelayMs);
      } catch (err) {
        if (stopped) break;
        if (err instanceof ForwarderFencedError) {
          // Someone else leads: give up this lock (it may be lost already) and stand by.
          logger.warn({ forwarder: name }, "another forwarder moved the checkpoint; standing by");
          await subscription?.stop();
          return;
        }
        logger.error({ err, forwarder: name }, "forwarding failed; starting again from the checkpoint");
        await subscription?.stop();
        await pause.wait(retryDelayMs);
      }
    }
  };

  const run = async () => {
    while (!stopped) {
      const lock = await database.tryLock(`forwarder:${name}`).catch((err: unknown) => {
        logger.error({ err, forwarder: name }, "taking the forwarder lock failed");
        return undefined;
      });
      if (!lock) {
        await pause.wait(retryDelayMs);
        continue;
      }
      leading = true;
      try {
        await lead();
      } finally {
        leading = false;
        await lock.release();
      }
    }
  };
  const running = run();

  return {
    get leading() {
      return leading;
    },
    async stop() {
      stopped = true;
      pause.interrupt();
      await subscription?.stop();
      await running;
    },
  };
}
