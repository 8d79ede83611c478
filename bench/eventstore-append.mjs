// Appends per second into the event store from 8 concurrent writers, each on its own stream, in batches
// of 1 and of 100, on PGlite (a temporary directory) and on PostgreSQL (a throw-away database).
// Runs the built packages: `npx tsc -b && node bench/eventstore-append.mjs`. One JSON line per configuration.
// BENCH_SECONDS (default 5) sets each run's length; BENCH_STORES=pglite,postgres picks the stores.
import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openEventStore } from "@tidings/eventstore";
import { withScratchDatabase } from "./support/scratchDatabase.mjs";

const seconds = Number(process.env.BENCH_SECONDS ?? 5);
const stores = (process.env.BENCH_STORES ?? "pglite,postgres").split(",");
const writers = 8;

async function withPglite(run) {
  const dir = mkdtempSync(join(tmpdir(), "tidings-bench-"));
  try {
    return await run(join(dir, "eventstore"));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function anEvent() {
  return {
    id: randomUUID(),
    type: "EmailQueued",
    data: { to: ["someone@example.com"], subject: "Hello", html: "<p>Hi</p>" },
    metadata: { teamId: "team-1", actor: "bench" },
  };
}

async function measure(url, store, batch) {
  const opened = await openEventStore(url);
  try {
    const latencies = [];
    let events = 0;
    const started = performance.now();
    const until = started + seconds * 1000;
    await Promise.all(
      Array.from({ length: writers }, async () => {
        const stream = `email-${randomUUID()}`;
        let revision = "no_stream";
        while (performance.now() < until) {
          const events_ = Array.from({ length: batch }, anEvent);
          const t = performance.now();
          revision = (await opened.store.append(stream, events_, revision)).nextExpectedRevision;
          latencies.push(performance.now() - t);
          events += batch;
        }
      }),
    );
    const elapsed = (performance.now() - started) / 1000;
    latencies.sort((a, b) => a - b);
    const p99 = latencies[Math.min(latencies.length - 1, Math.floor(latencies.length * 0.99))];
    console.log(
      JSON.stringify({
        bench: "eventstore-append",
        store,
        batch,
        writers,
        events_per_s: Math.round(events / elapsed),
        p99_ms: Number(p99.toFixed(2)),
        rss_mb: Math.round(process.memoryUsage().rss / 2 ** 20),
        peak_rss_mb: Math.round(process.resourceUsage().maxRSS / 1024),
      }),
    );
  } finally {
    await opened.close();
  }
}

for (const store of stores) {
  const around = store === "postgres" ? (run) => withScratchDatabase("append", run) : withPglite;
  await around(async (url) => {
    for (const batch of [1, 100]) await measure(url, store, batch);
  });
}
