import { setMaxListeners } from "node:events";
import type { Logger } from "@tidings/core";
import { AckPolicy, DeliverPolicy, nanos, type ConsumerMessages, type JetStreamClient, type JetStreamManager, type JsMsg } from "nats";
import { defaultAckWaitMs, handleDelivery, type DeadLetterSink, type Delivery } from "../delivery.js";
import type { Consumer, ConsumerOptions, MessageHandler } from "../port.js";

/** How long one pull request waits on the server for messages. Stopping does not wait for it. */
const pullExpiresMs = 5_000;

/**
 * A durable pull consumer. It asks the server for exactly as many messages as it has free handler slots,
 * so a message never waits in a client buffer while its ack wait runs.
 *
 * The server's `max_deliver` is ours plus one: when the last allowed delivery's handler never settles
 * (crash, or slower than the ack wait), the server still delivers once more, and that delivery goes to
 * the dead-letter subject instead of staying pending for ever.
 */
export async function startNatsConsumer(
  nats: { js: JetStreamClient; jsm: JetStreamManager; stream: string; subjectPrefix: string },
  options: ConsumerOptions,
  handler: MessageHandler,
  context: { deadLetter: DeadLetterSink; logger: Logger },
): Promise<Consumer> {
  const { durable } = options;
  const { logger } = context;
  const ackWaitMs = options.ackWaitMs ?? defaultAckWaitMs;
  const concurrency = Math.max(1, options.concurrency ?? 1);
  await nats.jsm.consumers.add(nats.stream, {
    durable_name: durable,
    ack_policy: AckPolicy.Explicit,
    deliver_policy: DeliverPolicy.All,
    filter_subject: nats.subjectPrefix + options.filterSubject,
    ack_wait: nanos(ackWaitMs),
    max_deliver: options.maxDeliver + 1,
  });
  const consumer = await nats.js.consumers.get(nats.stream, durable);
  const inFlight = new Set<Promise<void>>();
  // A pull is a request to the server, and a handler ending frees one slot: pulling for every freed slot
  // made a busy consumer spend more on pulls than on its messages. It pulls again once a quarter of its
  // slots are free (at once when idle, where all are).
  const refillAt = Math.max(1, Math.floor(concurrency / 4));
  let roomMade: (() => void) | undefined;
  let stopped = false;
  const stopping = new AbortController();
  // Every handler in flight may listen on it.
  setMaxListeners(0, stopping.signal);
  let pulling: ConsumerMessages | undefined;
  // Acks wait for the end of the event-loop turn and go out together: the client writes to its socket once
  // per microtask checkpoint, and handlers settle in separate ones, so acked at once a busy consumer made
  // a syscall per message. An ack lost to a crash meanwhile is a redelivery, as a lost ack always was.
  let acks: JsMsg[] = [];
  const flushAcks = () => {
    const due = acks;
    acks = [];
    for (const msg of due) msg.ack();
  };

  const toDelivery = (msg: JsMsg): Delivery => {
    const headers: Record<string, string> = {};
    for (const [key, values] of msg.headers ?? []) {
      if (!key.startsWith("Nats-")) headers[key] = values[0] ?? "";
    }
    return {
      subject: msg.subject.slice(nats.subjectPrefix.length),
      data: parseBody(msg.string()),
      msgId: msg.headers?.get("Nats-Msg-Id") ?? "",
      headers,
      deliveryCount: msg.info.deliveryCount,
      // Not ackAck: waiting for the server's confirmation costs a request per message and holds the
      // handler slot meanwhile. An ack lost on the way redelivers the message, which every handler
      // takes as a repeat (sagas consume at least once, with effect once).
      ack: async () => {
        if (acks.push(msg) === 1) setImmediate(flushAcks);
      },
      nak: async (delayMs) => msg.nak(delayMs > 0 ? delayMs : undefined),
      working: async () => msg.working(),
    };
  };

  const run = (msg: JsMsg) => {
    const task = Promise.resolve()
      .then(() => handleDelivery(toDelivery(msg), handler, options, context.deadLetter, logger, stopping.signal))
      .catch((err) => logger.error({ err, durable, seq: msg.seq }, "settling a message failed; it will be redelivered"))
      .finally(() => {
        inFlight.delete(task);
        if (roomMade && concurrency - inFlight.size >= refillAt) {
          roomMade();
          roomMade = undefined;
        }
      });
    inFlight.add(task);
  };

  // Iterations end on their own (batch complete, expiry, or stop()): breaking out of them hangs the client.
  const loop = async () => {
    while (!stopped) {
      const free = concurrency - inFlight.size;
      if (free < refillAt) {
        await new Promise<void>((resolve) => (roomMade = resolve));
        continue;
      }
      try {
        pulling = await consumer.fetch({ max_messages: free, expires: pullExpiresMs });
        if (stopped) pulling.stop();
        for await (const msg of pulling) run(msg);
      } catch (err) {
        if (stopped) break;
        logger.error({ err, durable }, "pulling messages failed");
        await new Promise((resolve) => setTimeout(resolve, 1_000));
      }
    }
  };
  const looping = loop();

  return {
    async stop() {
      stopped = true;
      stopping.abort();
      pulling?.stop();
      await looping;
      await Promise.all(inFlight);
      flushAcks();
    },
  };
}

function parseBody(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
