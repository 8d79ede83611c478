// Rebuild speed of the streams projection (3 read-model tables) over 1,000,000 events on PostgreSQL.
// Appends the events to a throw-away database (many streams, a few categories and types), then rebuilds
// in a child process, so the peak RSS reported is the rebuild's alone. Runs the built packages:
// `npx tsc -b && node bench/projection-rebuild.mjs`. BENCH_EVENTS (default 1,000,000) sets the size.
// Targets: ≥ 30,000 events/s, peak RSS < 300 MB.
import { spawnSync } from "node:child_process";
import { randomUUID } from "node:crypto";
import { fileURLToPath } from "node:url";
import { withScratchDatabase } from "./support/scratchDatabase.mjs";

const totalEvents = Number(process.env.BENCH_EVENTS ?? 1_000_000);
const perStream = 20;
const writers = 8;
const categories = ["email", "contact", "broadcast", "domain", "webhook"];
const types = ["Queued", "Sent", "Delivered", "Opened", "Clicked"];

if (process.argv[2] === "--rebuild") {
  await rebuild(process.argv[3]);
} else {
  await main();
}

async function main() {
  await withScratchDatabase("rebuild", async (url) => {
    const appended = await appendAll(url);
    const child = spawnSync(process.execPath, [fileURLToPath(import.meta.url), "--rebuild", url], {
      stdio: ["ignore", "pipe", "inherit"],
      encoding: "utf8",
    });
    if (child.status !== 0) throw new Error(`the rebuild failed (exit ${child.status})`);
    const result = JSON.parse(child.stdout.trim().split("\n").at(-1));
    console.log(
      JSON.stringify({ bench: "projection-rebuild", store: "postgres", ...result, append_events_per_s: appended.eventsPerSecond }),
    );
  });
}

async function appendAll(url) {
  const { openEventStore } = await import("@tidings/eventstore");
  const opened = await openEventStore(url);
  try {
    const streams = Math.ceil(totalEvents / perStream);
    let next = 0;
    const started = performance.now();
    await Promise.all(
      Array.from({ length: writers }, async () => {
        for (let s = next++; s < streams; s = next++) {
          const category = categories[s % categories.length];
          const count = Math.min(perStream, totalEvents - s * perStream);
          const events = Array.from({ length: count }, (_, n) => ({
            id: randomUUID(),
            type: `${category}.${types[n % types.length]}`,
            data: { n, to: ["someone@example.com"], subject: "Hello" },
            metadata: { teamId: `team-${s % 7}`, actor: "bench" },
          }));
          await opened.store.append(`${category}-${randomUUID()}`, events, "no_stream");
        }
      }),
    );
    const seconds = (performance.now() - started) / 1000;
    process.stderr.write(`appended ${totalEvents} events in ${seconds.toFixed(1)} s\n`);
    return { eventsPerSecond: Math.round(totalEvents / seconds) };
  } finally {
    await opened.close();
  }
}

async function rebuild(url) {
  const { openEventStore } = await import("@tidings/eventstore");
  const { rebuildProjection, streamsProjection } = await import("@tidings/projections");
  const opened = await openEventStore(url);
  try {
    let lastLog = 0;
    const result = await rebuildProjection({
      store: opened.store,
      database: opened.database,
      projection: streamsProjection,
      onProgress(p) {
        if (Date.now() - lastLog < 2_000) return;
        lastLog = Date.now();
        process.stderr.write(
          `${p.events} events, ${Math.round(p.eventsPerSecond)} events/s, ${(p.fraction * 100).toFixed(1)}%, ETA ${p.etaSeconds?.toFixed(0) ?? "?"} s\n`,
        );
      },
    });
    console.log(
      JSON.stringify({
        events: result.events,
        events_per_s: Math.round(result.eventsPerSecond),
        seconds: Number(result.seconds.toFixed(2)),
        peak_rss_mb: Math.round(process.resourceUsage().maxRSS / 1024),
        checksum: result.checksum.checksum,
      }),
    );
  } finally {
    await opened.close();
  }
}
