import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from "prom-client";
import type { CollectedGauge, HistogramDefinition, InstrumentDefinition, Metrics } from "@tidings/core";

export interface PrometheusMetrics {
  metrics: Metrics;
  registry: Registry;
}

/**
 * The metrics port on a prom-client registry of its own, with the process's metrics (CPU, memory, event
 * loop lag, handles). An instrument is made once per name: in `serve --role all` the roles share one
 * process and one registry, and each asks for the instruments it records into.
 */
export function createPrometheusMetrics(): PrometheusMetrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const made = new Map<string, unknown>();
  const once = <T>(name: string, make: () => T): T => {
    if (!made.has(name)) made.set(name, make());
    return made.get(name) as T;
  };
  const base = <L extends string>(d: InstrumentDefinition<L>) => ({
    name: d.name,
    help: d.help,
    labelNames: [...(d.labels ?? [])],
    registers: [registry],
  });
  const collectFailures = once(
    "tidings_metrics_collect_failures_total",
    () =>
      new Counter({
        name: "tidings_metrics_collect_failures_total",
        help: "Scrapes on which a gauge read from the database or the bus failed and was left empty",
        labelNames: ["gauge"],
        registers: [registry],
      }),
  );

  const metrics: Metrics = {
    enabled: true,
    counter: (d) => once(d.name, () => new Counter(base(d))),
    histogram: <L extends string>(d: HistogramDefinition<L>) =>
      once(d.name, () => new Histogram({ ...base(d), ...(d.buckets ? { buckets: d.buckets } : {}) })),
    gauge: (d) => once(d.name, () => new Gauge(base(d))),
    collected<L extends string>(d: CollectedGauge<L>) {
      once(
        d.name,
        () =>
          new Gauge({
            ...base(d),
            async collect() {
              // Label sets of the last scrape go, so a consumer or projection that left stops being reported.
              this.reset();
              try {
                await d.collect(this);
              } catch {
                this.reset();
                collectFailures.inc({ gauge: d.name });
              }
            },
          }),
      );
    },
  };
  return { metrics, registry };
}
