import type { DueTimer } from "./timers.js";

/** What every timer's payload has: the kind that says which saga fires it. */
interface KindedPayload {
  kind: string;
}

/** A handler for each kind of `Payload`: the mapped type makes a kind without its handler a compile error. */
export type TimerHandlers<Payload extends KindedPayload> = {
  [Kind in Payload["kind"]]: (payload: Extract<Payload, { kind: Kind }>, timer: DueTimer, stopping: AbortSignal) => Promise<void>;
};

/**
 * Fires a due timer by its payload's kind. A payload of no kind this build knows (written by a newer
 * version, or damaged) throws, so the timer is tried again and its error logged, rather than taken for
 * another kind.
 */
export function dispatchTimers<Payload extends KindedPayload>(
  handlers: TimerHandlers<Payload>,
): (timer: DueTimer, stopping: AbortSignal) => Promise<void> {
  const fire = <Kind extends Payload["kind"]>(payload: Extract<Payload, { kind: Kind }>, timer: DueTimer, stopping: AbortSignal) =>
    handlers[payload.kind as Kind](payload, timer, stopping);
  return (timer, stopping) => {
    const payload = timer.payload as Payload;
    if (!Object.hasOwn(handlers, payload?.kind))
      throw new Error(`timer ${timer.key} has a payload of no known kind: ${JSON.stringify(timer.payload)}`);
    return fire(payload as Extract<Payload, { kind: Payload["kind"] }>, timer, stopping);
  };
}
