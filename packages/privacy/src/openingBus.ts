import type { Bus, BusMessage } from "@tidings/bus";
import type { Keyring } from "./keyring.js";
import { openEvents } from "./openEvents.js";

/**
 * The bus as sagas see it (docs/privacy.md): the forwarder publishes events as the store keeps them,
 * sealed, so NATS and the embedded bus table hold no personal value in clear; a consumer's handler gets
 * the event opened, or with placeholders where a key was shredded since.
 */
export function createOpeningBus(inner: Bus, keyring: Keyring): Bus {
  const opened = async (message: BusMessage): Promise<BusMessage> => {
    const body = message.data as { type?: unknown; data?: unknown } | null;
    if (typeof body?.type !== "string") return message;
    const [event] = await openEvents(keyring, [{ ...body, type: body.type, data: body.data }]);
    return { ...message, data: event };
  };
  return {
    publish: (subject, data, options) => inner.publish(subject, data, options),
    consume: (options, handler) => inner.consume(options, async (message) => handler(await opened(message))),
    deadLetters: (durable, limit) => inner.deadLetters(durable, limit),
    close: () => inner.close(),
  };
}
