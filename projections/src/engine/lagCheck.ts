import type { EventStore } from "@tidings/eventstore";
import type { Database } from "@tidings/postgres";
import { projectionLags } from "./projectionLags.js";

/** Thrown by the readiness check of projection lag; its message names the projections behind. */
export class ProjectionsBehindError extends Error {
  override readonly name = "ProjectionsBehindError";
}

/**
 * A readiness check (`/ready`): throws while the oldest event some projection has not applied is older
 * than `maxSeconds` (READY_MAX_PROJECTION_LAG_SECONDS). An api whose read models stand still answers
 * reads with old data and makes every write wait out its read-your-writes timeout, so it should not take
 * traffic. One event is read per projection.
 */
export function projectionLagCheck(options: { store: EventStore; database: Database; names: string[]; maxSeconds: number }) {
  const { store, database, names, maxSeconds } = options;
  return async (): Promise<void> => {
    const behind = (await projectionLags(store, database, names, 1)).filter(({ lag }) => lag.seconds > maxSeconds);
    if (behind.length > 0) {
      const list = behind.map(({ projection, lag }) => `${projection} ${lag.seconds.toFixed(0)} s`).join(", ");
      throw new ProjectionsBehindError(`projections behind by more than ${maxSeconds} s: ${list}`);
    }
  };
}
