import { formatTimestamp, type Clock } from "@tidings/core";
import type { EventMetadata } from "@tidings/eventstore";

/** The sagas, as the `actor` of the events they append says them: `saga:<name>`. */
export type SagaName =
  | "delivery"
  | "scheduler"
  | "webhooks"
  | "automations"
  | "contact-import"
  | "broadcast-fan-out"
  | "broadcast-scheduler"
  | "domain-verification";

export interface SagaEventContext {
  teamId: string;
  /** The chain the event belongs to: what the saga works on (an email, a delivery, a domain, …). */
  correlationId: string;
  /** The event the saga reacted to, when one caused this append. */
  causationId?: string;
}

/** What every event a saga appends carries: who appended it, for which team, in which chain, and when (by the saga's clock). */
export function sagaMetadata(clock: Clock, saga: SagaName, context: SagaEventContext): EventMetadata {
  return { ...context, actor: `saga:${saga}`, occurredAt: formatTimestamp(clock.now()) };
}
