import { measureLag, type EventStore, type Lag } from "@tidings/eventstore";
import type { Database } from "@tidings/postgres";
import { ensureCheckpointTable, readCheckpoints } from "./checkpoints.js";

/** Each named projection's lag behind `$all` from its live checkpoint, events counted up to `cap`. */
export async function projectionLags(
  store: EventStore,
  database: Database,
  names: string[],
  cap: number,
): Promise<{ projection: string; lag: Lag }[]> {
  await ensureCheckpointTable(database);
  const live = (await readCheckpoints(database.db, names)).filter((c) => c.state === "live");
  return Promise.all(
    names.map(async (projection) => ({ projection, lag: await measureLag(store, live.find((c) => c.name === projection)?.position, cap) })),
  );
}
