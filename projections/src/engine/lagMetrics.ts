import { sharedRead, type Metrics } from "@tidings/core";
import type { EventStore } from "@tidings/eventstore";
import type { Database } from "@tidings/postgres";
import { projectionLags } from "./projectionLags.js";

/** Lag in events is counted by reading them, up to this many per projection on a scrape. */
export const lagEventsCounted = 1000;

/**
 * Each projection's lag behind `$all`, in events and seconds, read on each scrape from the live checkpoints
 * (docs/operations.md, "Metrics"). `store` is the store as stored: the events are counted, never opened.
 */
export function registerProjectionLagMetrics(options: { store: EventStore; database: Database; names: string[]; metrics: Metrics }): void {
  const { store, database, names, metrics } = options;
  if (!metrics.enabled) return;
  const lags = sharedRead(() => projectionLags(store, database, names, lagEventsCounted));
  metrics.collected({
    name: "tidings_projection_lag_events",
    help: `Events in $all a projection has not applied yet, counted up to ${lagEventsCounted}`,
    labels: ["projection"],
    collect: async (gauge) => {
      for (const { projection, lag } of await lags()) gauge.set({ projection }, lag.events);
    },
  });
  metrics.collected({
    name: "tidings_projection_lag_seconds",
    help: "Age of the oldest event a projection has not applied yet; 0 when caught up",
    labels: ["projection"],
    collect: async (gauge) => {
      for (const { projection, lag } of await lags()) gauge.set({ projection }, lag.seconds);
    },
  });
}
