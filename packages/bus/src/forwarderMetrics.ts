import { sharedRead, type Metrics } from "@tidings/core";
import { measureLag, type EventStore } from "@tidings/eventstore";
import type { Database } from "@tidings/postgres";
import { readForwarderCheckpoint } from "./forwarderCheckpoint.js";

/** Lag in events is counted by reading them, up to this many on a scrape. */
const lagEventsCounted = 1000;

/**
 * How far the forwarder's checkpoint is behind `$all`, in events and seconds, read on each scrape
 * (docs/operations.md, "Metrics"). The checkpoint trails what is published by up to its pacing (250 ms),
 * so a busy forwarder shows a little lag that is not real.
 */
export function registerForwarderLagMetrics(options: { store: EventStore; database: Database; metrics: Metrics; name?: string }): void {
  const { store, database, metrics } = options;
  if (!metrics.enabled) return;
  const lag = sharedRead(async () =>
    measureLag(store, await readForwarderCheckpoint(database.db, options.name ?? "forwarder"), lagEventsCounted),
  );
  metrics.collected({
    name: "tidings_forwarder_lag_events",
    help: `Events in $all the forwarder has not published to the bus yet, counted up to ${lagEventsCounted}`,
    collect: async (gauge) => gauge.set({}, (await lag()).events),
  });
  metrics.collected({
    name: "tidings_forwarder_lag_seconds",
    help: "Age of the oldest event the forwarder has not published yet; 0 when caught up",
    collect: async (gauge) => gauge.set({}, (await lag()).seconds),
  });
}
