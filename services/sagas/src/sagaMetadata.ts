import { formatTimestamp, type Clock } from "@tidings/core";
import type { EventMetadata, RecordedEvent } from "@tidings/eventstore";

/** The sagas, as the `actor` of the events they append says them: `saga:<name>`. */
export type SagaName =
  | "delivery"
  | "scheduler"
  | "webhooks"
  | "automations"
  | "contact-import"
  | "broadcast-fan-out"
  | "broadcast-scheduler"
  | "domain-verification"
  | "reputation";

/**
 * Where an appended event sits in its chain (docs/events.md, Metadata): `correlationId` is the id of the request
 * that started the chain (or of its first event, for a chain no request started), `causationId` the id of the
 * event that caused this one.
 */
export interface EventChain {
  correlationId: string;
  causationId: string;
}

export interface SagaEventContext extends EventChain {
  teamId: string;
}

type Link = Pick<RecordedEvent, "id" | "metadata">;

/** The chain of an event a saga appends in reaction to `event`: the same correlation, caused by it. */
export const reactingTo = (event: Link): EventChain => ({ correlationId: event.metadata.correlationId ?? event.id, causationId: event.id });

/**
 * The chain of an event a saga appends to a stream it read, where no single event caused it (a timer firing, a
 * retry): the correlation of `origin` (by default the stream's first event), caused by the stream's last event.
 */
export function continuing(recorded: readonly Link[], origin: Link = recorded[0]!): EventChain {
  return { correlationId: origin.metadata.correlationId ?? origin.id, causationId: recorded[recorded.length - 1]!.id };
}

/** What every event a saga appends carries: who appended it, for which team, in which chain, and when (by the saga's clock). */
export function sagaMetadata(clock: Clock, saga: SagaName, context: SagaEventContext): EventMetadata {
  return {
    teamId: context.teamId,
    correlationId: context.correlationId,
    causationId: context.causationId,
    actor: `saga:${saga}`,
    occurredAt: formatTimestamp(clock.now()),
  };
}
