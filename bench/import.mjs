// Contact import speed on PostgreSQL: a generated CSV of BENCH_ROWS rows (default 1,000,000, about 80 MB,
// 3 properties) streamed into the blob store, then imported by the contact-import saga's own run, in this
// process. Prints rows/s and the peak RSS sampled throughout. Runs the built packages:
// `npx tsc -b && node bench/import.mjs`. Targets (issue #6): ≥ 20,000 rows/s, RSS < 300 MB throughout.
import { randomUUID } from "node:crypto";
import { withScratchDatabase } from "./support/scratchDatabase.mjs";

const rows = Number(process.env.BENCH_ROWS ?? 1_000_000);
let peakRss = 0;
const sampler = setInterval(() => (peakRss = Math.max(peakRss, process.memoryUsage().rss)), 100);

async function* csv() {
  yield Buffer.from("email,first_name,last_name,plan,seats,city\n");
  const batch = 2000;
  for (let start = 0; start < rows; start += batch) {
    let text = "";
    for (let i = start; i < Math.min(rows, start + batch); i++) text += `person${i}@example.com,First${i},Last${i},${i % 3 ? "pro" : "free"},${i % 50},City ${i % 97}\n`;
    yield Buffer.from(text);
  }
}

await withScratchDatabase("import", async (url) => {
  const { createLogger, formatTimestamp, systemClock } = await import("@tidings/core");
  const { openDatabase, migrate } = await import("@tidings/postgres");
  const { openEventStore } = await import("@tidings/eventstore");
  const { createStreamedBlobStore } = await import("@tidings/blobs");
  const { createContactProperty } = await import("@tidings/audience");
  const { handleCommand } = await import("@tidings/commands");
  const { contactImportDecider, contactImportStream } = await import("@tidings/domain");
  const { runContactImport } = await import("@tidings/sagas");

  const database = await openDatabase({ url });
  const opened = await openEventStore(url);
  try {
    const store = opened.store;
    const blobs = createStreamedBlobStore(database);
    const teamId = randomUUID();
    const metadata = { actor: "bench" };
    for (const [key, type] of [["plan", "string"], ["seats", "number"], ["city", "string"]])
      await createContactProperty({ store, clock: systemClock }, teamId, { key, type, fallbackValue: null }, metadata);
    const uploadStarted = performance.now();
    const file = await blobs.putStream(csv(), { maxBytes: 200 * 1024 * 1024 });
    const uploadSeconds = (performance.now() - uploadStarted) / 1000;
    const importId = randomUUID();
    const columnMap = { email: "email", firstName: "first_name", lastName: "last_name", unsubscribed: null, properties: { plan: "plan", seats: "seats", city: "city" } };
    await handleCommand({
      store,
      streamId: contactImportStream(importId),
      decider: contactImportDecider,
      command: { type: "QueueContactImport", importId, teamId, file, columnMap, onConflict: "upsert", segmentIds: [], topics: [], now: formatTimestamp(new Date()) },
      metadata,
    });
    const started = performance.now();
    await runContactImport({ store, blobs, clock: systemClock, logger: createLogger("silent"), checkpointRows: 500, rowsInFlight: Number(process.env.BENCH_IN_FLIGHT ?? 128) }, importId);
    const seconds = (performance.now() - started) / 1000;
    clearInterval(sampler);
    console.log(
      JSON.stringify({
        bench: "import",
        store: "postgres",
        rows,
        file_mb: Math.round(file.size / 1024 / 1024),
        upload_mb_per_s: Math.round(file.size / 1024 / 1024 / uploadSeconds),
        rows_per_s: Math.round(rows / seconds),
        rss_mb: Math.round(peakRss / 1024 / 1024),
      }),
    );
  } finally {
    clearInterval(sampler);
    await opened.close();
    await database.close();
  }
});
