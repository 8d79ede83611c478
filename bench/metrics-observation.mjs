// What one recorded observation costs, metrics off (the no-op) and on (prom-client): a counter and a
// histogram with the HTTP request's three labels, and an append through instrumentEventStore around a store
// that answers at once, against the bare store. A micro-measure: the whole-send cost is bench/send's.
// Runs the built packages: `npx tsc -b && node bench/metrics-observation.mjs`. One JSON line.
// BENCH_CALLS (default 2,000,000) per measure.
import { noMetrics } from "@tidings/core";
import { createPrometheusMetrics } from "@tidings/metrics";
import { instrumentEventStore } from "@tidings/eventstore";

const calls = Number(process.env.BENCH_CALLS ?? 2_000_000);
const labels = { route: "/emails/:id", method: "GET", status: "200" };

/** Nanoseconds per call of `work` (awaited when `awaited`), the best of three runs after a warm-up. */
async function nsPerCall(work, { n = calls, awaited = false } = {}) {
  const loop = async (count) => {
    if (awaited) for (let i = 0; i < count; i++) await work(i);
    else for (let i = 0; i < count; i++) work(i);
  };
  await loop(n / 10);
  let best = Infinity;
  for (let run = 0; run < 3; run++) {
    const started = process.hrtime.bigint();
    await loop(n);
    best = Math.min(best, Number(process.hrtime.bigint() - started) / n);
  }
  return Math.round(best * 10) / 10;
}

const instruments = (metrics) => ({
  counter: metrics.counter({ name: "bench_requests_total", help: "bench", labels: ["route", "method", "status"] }),
  histogram: metrics.histogram({ name: "bench_request_seconds", help: "bench", labels: ["route", "method", "status"] }),
});
const off = instruments(noMetrics);
const on = instruments(createPrometheusMetrics().metrics);
const appended = { nextExpectedRevision: 0n, position: { commit: 1n, prepare: 1n } };
const store = { append: async () => appended, appendMany: async () => [appended] };
const events = [{ id: "e", type: "T", data: {} }];
const storeOn = instrumentEventStore(store, createPrometheusMetrics().metrics);

console.log(
  JSON.stringify({
    bench: "metrics-observation",
    calls,
    counterOffNs: await nsPerCall(() => off.counter.inc(labels)),
    counterOnNs: await nsPerCall(() => on.counter.inc(labels)),
    histogramOffNs: await nsPerCall((i) => off.histogram.observe(labels, (i % 100) / 1000)),
    histogramOnNs: await nsPerCall((i) => on.histogram.observe(labels, (i % 100) / 1000)),
    appendBareNs: await nsPerCall(() => store.append("s-1", events, "any"), { n: calls / 4, awaited: true }),
    appendInstrumentedNs: await nsPerCall(() => storeOn.append("s-1", events, "any"), { n: calls / 4, awaited: true }),
  }),
);
