/**
 * The metrics port (docs/operations.md, "Metrics"): what code records into. The prom-client adapter
 * (@tidings/metrics) serves it on METRICS_PORT; with metrics off every instrument is the shared no-op, so
 * a hot path pays one empty call. Label values are kinds, templates and outcomes, never ids or addresses:
 * each distinct value is a series Prometheus keeps.
 */
export type Labels<L extends string> = Partial<Record<L, string | number>>;

export interface Counter<L extends string = string> {
  inc(labels?: Labels<L>, by?: number): void;
}

export interface Histogram<L extends string = string> {
  observe(labels: Labels<L>, value: number): void;
}

export interface Gauge<L extends string = string> {
  set(labels: Labels<L>, value: number): void;
  inc(labels?: Labels<L>, by?: number): void;
  dec(labels?: Labels<L>, by?: number): void;
}

export interface InstrumentDefinition<L extends string> {
  name: string;
  help: string;
  labels?: readonly L[];
}

export interface HistogramDefinition<L extends string> extends InstrumentDefinition<L> {
  /** Upper bounds, in the unit the name says (seconds). */
  buckets?: number[];
}

export interface CollectedGauge<L extends string> extends InstrumentDefinition<L> {
  /** Called on each scrape; sets the values it reads. A throw leaves the gauge empty for that scrape. */
  collect(gauge: Pick<Gauge<L>, "set">): Promise<void>;
}

export interface Metrics {
  readonly enabled: boolean;
  counter<L extends string>(definition: InstrumentDefinition<L>): Counter<L>;
  histogram<L extends string>(definition: HistogramDefinition<L>): Histogram<L>;
  gauge<L extends string>(definition: InstrumentDefinition<L>): Gauge<L>;
  /** A gauge read when scraped, for what a query answers (lag, pending, due timers) rather than an event counts. */
  collected<L extends string>(definition: CollectedGauge<L>): void;
}

const nothing = { inc() {}, observe() {}, set() {}, dec() {} };

/** Metrics off: one shared instrument whose calls do nothing. */
export const noMetrics: Metrics = {
  enabled: false,
  counter: () => nothing,
  histogram: () => nothing,
  gauge: () => nothing,
  collected: () => {},
};

/** Seconds since `startedAt`, a `performance.now()` reading: what every latency histogram observes. */
export const secondsSince = (startedAt: number) => (performance.now() - startedAt) / 1000;

/**
 * One read for the gauges a scrape collects together (events and seconds of the same lag): calls within
 * `forMs` of the first share its answer, so a scrape costs one query, not one per gauge.
 */
export function sharedRead<T>(read: () => Promise<T>, forMs = 1000): () => Promise<T> {
  let last: { at: number; value: Promise<T> } | undefined;
  return () => {
    const now = performance.now();
    if (!last || now - last.at > forMs) {
      const value = read();
      last = { at: now, value };
      // A failed read is not kept: the next scrape tries again.
      value.catch(() => (last = undefined));
    }
    return last.value;
  };
}
