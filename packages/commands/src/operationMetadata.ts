import { formatTimestamp, newId, type Clock } from "@tidings/core";
import type { EventMetadata } from "@tidings/eventstore";

/**
 * The metadata of events that no request and no event caused: a CLI command, the first start's bootstrap, a
 * message received over SMTP. `operationId` stands where a request id would: it is the correlation of the chain
 * the operation starts and the cause of its first events (docs/events.md, Metadata); a fresh id unless the
 * operation has one of its own (a received message's).
 */
export function operationMetadata(actor: string, clock: Clock, options: { teamId?: string; operationId?: string } = {}): EventMetadata {
  const operationId = options.operationId ?? newId();
  return {
    ...(options.teamId === undefined ? {} : { teamId: options.teamId }),
    actor,
    correlationId: operationId,
    causationId: operationId,
    occurredAt: formatTimestamp(clock.now()),
  };
}
