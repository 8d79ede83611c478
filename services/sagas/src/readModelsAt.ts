import { formatPosition, type Position } from "@tidings/eventstore";
import type { CheckpointWaiter } from "@tidings/projections";

/**
 * Resolves once the named projections have applied `position`, the position of the event a saga handles:
 * their read models then hold everything written before that event, in any process, which is what a
 * saga's lookup there must see (a webhook created, an automation enabled, a contact unsubscribed just
 * before). Throws when they have not within the bound: the bus then tries the message again later, with
 * its backoff, rather than have it decided on a read model that is behind.
 */
export type ReadModelsAt = (projections: readonly string[], position: Position) => Promise<void>;

/** Within the 30 s a consumer without a heartbeat has before its message is redelivered anyway. */
export const READ_MODELS_WAIT_MS = 10_000;

export class ReadModelsBehindError extends Error {
  override readonly name = "ReadModelsBehindError";
  constructor(projections: readonly string[], position: Position, timeoutMs: number) {
    super(`the ${projections.join(", ")} read models did not reach ${formatPosition(position)} within ${timeoutMs} ms; trying again later`);
  }
}

export function readModelsAt(waiter: Pick<CheckpointWaiter, "waitFor">, timeoutMs = READ_MODELS_WAIT_MS): ReadModelsAt {
  return async (projections, position) => {
    if (!(await waiter.waitFor(position, timeoutMs, projections))) throw new ReadModelsBehindError(projections, position, timeoutMs);
  };
}
