import type { Bus, BusMessage } from "@tidings/bus";
import type { Keyring } from "./keyring.js";
import { openEvents } from "./openEvents.js";

/** How long an event opened for one consumer is handed to the others: the key cache's window (docs/privacy.md, "Windows"). */
const SHARED_MS = 2_000;

/**
 * The bus as sagas see it (docs/privacy.md): the forwarder publishes events as the store keeps them,
 * sealed, so NATS and the embedded bus table hold no personal value in clear; a consumer's handler gets
 * the event opened, or with placeholders where a key was shredded since. Several sagas consume most
 * events: the first to open one shares it with the others for a moment, so it is deciphered once.
 */
export function createOpeningBus(inner: Bus, keyring: Keyring): Bus {
  const recent = new Map<string, { at: number; event: unknown }>();
  const opened = async (message: BusMessage): Promise<BusMessage> => {
    const body = message.data as { id?: unknown; type?: unknown; data?: unknown } | null;
    if (typeof body?.type !== "string") return message;
    const id = typeof body.id === "string" ? body.id : undefined;
    const hit = id === undefined ? undefined : recent.get(id);
    if (hit && Date.now() - hit.at < SHARED_MS) return { ...message, data: hit.event };
    const [event] = await openEvents(keyring, [{ ...body, type: body.type, data: body.data }]);
    if (id !== undefined) {
      // Kept no longer than they may be handed out: a send bench's sagas held 10,000 opened emails,
      // bodies and all, where 2 s of traffic needed a few hundred. Insertion order is age order.
      const now = Date.now();
      for (const [oldest, entry] of recent) {
        if (now - entry.at < SHARED_MS && recent.size < 10_000) break;
        recent.delete(oldest);
      }
      recent.set(id, { at: now, event });
    }
    return { ...message, data: event };
  };
  return {
    publish: (subject, data, options) => inner.publish(subject, data, options),
    consume: (options, handler) => inner.consume(options, async (message) => handler(await opened(message))),
    deadLetters: (durable, limit) => inner.deadLetters(durable, limit),
    deadLetter: (durable, id) => inner.deadLetter(durable, id),
    removeDeadLetter: (durable, id) => inner.removeDeadLetter(durable, id),
    pending: (durable) => inner.pending(durable),
    close: () => inner.close(),
  };
}
