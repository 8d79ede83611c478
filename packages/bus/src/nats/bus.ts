import { createLogger, type Logger } from "@tidings/core";
import { connect, headers as natsHeaders, type JetStreamManager, type StoredMsg } from "nats";
import { deadLetterOf, storedDeadLetter, type DeadLetterSink, type OutgoingMessage } from "../delivery.js";
import { backoffFrom, deadLetterSubject, defaultBusRetryBackoffMs, type Bus, type Consumer, type DeadLetter } from "../port.js";
import { assertValidFilter } from "../subject.js";
import { startNatsConsumer } from "./consumer.js";
import { ensureStream } from "./streams.js";

export interface NatsBusOptions {
  /** Defaults to nats://127.0.0.1:4222. */
  servers?: string | string[];
  /** The stream on `events.>`. Defaults to `EVENTS`. */
  eventsStream?: string;
  /** The stream on `deadletter.>`. Defaults to `DEADLETTER`. */
  deadLetterStream?: string;
  /**
   * Put before every subject on the wire (`t42.` makes `events.x` travel as `t42.events.x`), and taken off
   * again on delivery. With their own stream names, this lets test files share one server.
   */
  subjectPrefix?: string;
  /**
   * How long JetStream remembers a `Nats-Msg-Id` to drop a repeat. The forwarder republishes at most one
   * batch after a restart, seconds later, so minutes are plenty; the server keeps every id of the window
   * in memory, so it should not be hours. Defaults to 5 minutes.
   */
  duplicateWindowMs?: number;
  /** Messages older than this leave the streams. Defaults to 7 days: everything can be replayed from the event store. */
  maxAgeMs?: number;
  logger?: Logger;
  /** Redelivery delays after a thrown handler, for consumers that set none (BUS_RETRY_BACKOFF_MS); the last step repeats. */
  retryBackoffMs?: readonly number[];
}

/** The bus on NATS JetStream (docs/architecture.md §5): streams `EVENTS` and `DEADLETTER`, durable pull consumers. */
export async function createNatsBus(options: NatsBusOptions = {}): Promise<Bus> {
  const logger = options.logger ?? createLogger("silent");
  const prefix = options.subjectPrefix ?? "";
  const eventsStream = options.eventsStream ?? "EVENTS";
  const deadLetterStream = options.deadLetterStream ?? "DEADLETTER";
  const backoffMs = backoffFrom(options.retryBackoffMs ?? defaultBusRetryBackoffMs);
  // Without async traces: each request (every publish awaits its ack) would build an Error for its stack,
  // a tenth of the forwarder's CPU in a profile, for a trace our own errors already carry.
  const nc = await connect({
    servers: options.servers ?? "nats://127.0.0.1:4222",
    name: "tidings-bus",
    maxReconnectAttempts: -1,
    noAsyncTraces: true,
  });
  const js = nc.jetstream();
  let jsm: JetStreamManager;
  try {
    jsm = await nc.jetstreamManager();
    const retention = { duplicateWindowMs: options.duplicateWindowMs ?? 5 * 60_000, maxAgeMs: options.maxAgeMs ?? 7 * 24 * 3_600_000 };
    await ensureStream(jsm, { name: eventsStream, subject: `${prefix}events.>`, ...retention });
    await ensureStream(jsm, { name: deadLetterStream, subject: `${prefix}${deadLetterSubject(">")}`, ...retention, allowDirect: true });
  } catch (error) {
    await nc.close();
    throw error;
  }
  const consumers = new Set<Consumer>();
  const encoder = new TextEncoder();

  const publish = async ({ subject, data, msgId, headers }: OutgoingMessage) => {
    const h = natsHeaders();
    // Header values end at a line break on the wire.
    for (const [key, value] of Object.entries(headers)) h.set(key, value.replace(/[\r\n]+/g, " "));
    await js.publish(prefix + subject, encoder.encode(JSON.stringify(data ?? null)), { msgID: msgId, headers: h });
  };

  const streamOf = (filter: string) => (filter.startsWith(deadLetterSubject("")) ? deadLetterStream : eventsStream);

  const findDeadLetter = async (durable: string, id: string) => {
    const seq = seqOf(id);
    if (seq === undefined) return undefined;
    // next_by_subj from the letter's own sequence answers that letter only if it is the durable's.
    const stored = await directGet(jsm, deadLetterStream, { seq, next_by_subj: prefix + deadLetterSubject(durable) });
    return stored?.seq === seq ? deadLetterOfStored(stored) : undefined;
  };

  return {
    async publish(subject, data, { msgId, headers = {} }) {
      await publish({ subject, data, msgId, headers });
    },

    async consume(consumerOptions, handler) {
      assertValidFilter(consumerOptions.filterSubject);
      const { durable } = consumerOptions;
      const deadLetter: DeadLetterSink = (delivery, error) => publish(deadLetterOf(durable, delivery, error));
      const started = await startNatsConsumer(
        { js, jsm, stream: streamOf(consumerOptions.filterSubject), subjectPrefix: prefix },
        { ...consumerOptions, backoffMs: consumerOptions.backoffMs ?? backoffMs },
        handler,
        { deadLetter, logger },
      );
      const consumer: Consumer = {
        async stop() {
          consumers.delete(consumer);
          await started.stop();
        },
      };
      consumers.add(consumer);
      return consumer;
    },

    async deadLetters(durable, limit = 100) {
      const subject = prefix + deadLetterSubject(durable);
      const letters: DeadLetter[] = [];
      let seq = 1;
      while (letters.length < limit) {
        const stored = await directGet(jsm, deadLetterStream, { seq, next_by_subj: subject });
        if (!stored) break;
        letters.push(deadLetterOfStored(stored));
        seq = stored.seq + 1;
      }
      return letters;
    },

    deadLetter: findDeadLetter,

    async removeDeadLetter(durable, id) {
      if (!(await findDeadLetter(durable, id))) return false;
      try {
        return await jsm.streams.deleteMessage(deadLetterStream, Number(id), false);
      } catch (error) {
        if (isNotFound(error)) return false;
        throw error;
      }
    },

    async pending(durable) {
      try {
        const info = await jsm.consumers.info(eventsStream, durable);
        return info.num_pending + info.num_ack_pending;
      } catch (error) {
        if ((error as { code?: string }).code === "404") return 0;
        throw error;
      }
    },

    async close() {
      await Promise.all([...consumers].map((consumer) => consumer.stop()));
      await nc.flush().catch(() => {});
      await nc.close();
    },
  };
}

/** The 2.x typings leave `direct` off the JetStreamManager interface; the implementation has it. */
type DirectGet = { direct: { getMessage(stream: string, query: { seq: number; next_by_subj: string }): Promise<StoredMsg> } };

const isNotFound = (error: unknown) => (error as { code?: string }).code === "404" || /no message found/i.test(String(error));

/** The first message of `stream` at or after `query.seq` on `query.next_by_subj`, or undefined when there is none. */
async function directGet(
  jsm: JetStreamManager,
  stream: string,
  query: { seq: number; next_by_subj: string },
): Promise<StoredMsg | undefined> {
  try {
    return await (jsm as JetStreamManager & Partial<DirectGet> as DirectGet).direct.getMessage(stream, query);
  } catch (error) {
    if (isNotFound(error)) return undefined;
    throw error;
  }
}

/** A stream sequence as a dead letter's id carries it, or undefined for an id that cannot be one. */
const seqOf = (id: string) => (/^[1-9][0-9]{0,15}$/.test(id) ? Number(id) : undefined);

function deadLetterOfStored(stored: StoredMsg): DeadLetter {
  const headers: Record<string, string> = {};
  // A direct get adds the server's own headers (Nats-Stream, Nats-Sequence, …): none of them was the message's.
  for (const key of stored.header.keys()) if (!/^Nats-/i.test(key)) headers[key] = stored.header.get(key);
  const data: unknown = JSON.parse(new TextDecoder().decode(stored.data));
  return storedDeadLetter({ id: String(stored.seq), headers, data, deadAt: stored.time });
}
