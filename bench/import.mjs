// Contact import speed on PostgreSQL: a generated CSV of BENCH_ROWS rows (default 1,000,000, about 80 MB,
// 3 properties) streamed into the blob store, then imported by the contact-import saga's own run, in this
// process. Prints rows/s and the peak RSS sampled throughout. The audience read models are projected
// meanwhile by a child process, as in server mode; `projection_lag_s` is how long after the import's end
// they caught up. Runs the built packages: `npx tsc -b && node bench/import.mjs`. BENCH_IN_FLIGHT sets the
// rows under way at once. Targets: ≥ 20,000 rows/s, RSS < 300 MB throughout.
import { spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { fileURLToPath } from "node:url";
import { withScratchDatabase } from "./support/scratchDatabase.mjs";
import { childToStop } from "./support/teardown.mjs";

if (process.argv[2] === "--project") {
  const { createLogger } = await import("@tidings/core");
  const { openEventStore } = await import("@tidings/eventstore");
  const { startProjections, audienceProjection } = await import("@tidings/projections");
  const opened = await openEventStore(process.argv[3]);
  await startProjections({
    store: opened.store,
    database: opened.database,
    projections: [audienceProjection],
    logger: createLogger("silent"),
  });
  process.stdout.write("ready\n");
  process.stdin.resume();
  process.stdin.on("end", () => process.exit(0));
  await new Promise(() => {});
}

const rows = Number(process.env.BENCH_ROWS ?? 1_000_000);
// The import runs in this process, not in a `tidings serve` sagas role: it gets the heap growth a role has.
const { loadConfig } = await import("@tidings/core");
const { limitHeapGrowth } = await import("@tidings/cli");
limitHeapGrowth(loadConfig(process.env).HEAP_GROWTH_PERCENT);
let peakRss = 0;
const sampler = setInterval(() => (peakRss = Math.max(peakRss, process.memoryUsage().rss)), 100);

async function* csv() {
  yield Buffer.from("email,first_name,last_name,plan,seats,city\n");
  const batch = 2000;
  for (let start = 0; start < rows; start += batch) {
    let text = "";
    for (let i = start; i < Math.min(rows, start + batch); i++)
      text += `person${i}@example.com,First${i},Last${i},${i % 3 ? "pro" : "free"},${i % 50},City ${i % 97}\n`;
    yield Buffer.from(text);
  }
}

await withScratchDatabase("import", async (url) => {
  const { createLogger, systemClock } = await import("@tidings/core");
  const { openDatabase } = await import("@tidings/postgres");
  const { openEventStore } = await import("@tidings/eventstore");
  const { createStreamedBlobStore } = await import("@tidings/blobs");
  const { createContactProperty, enqueueContactImport } = await import("@tidings/audience");
  const { contactImportStream } = await import("@tidings/domain");
  const { runContactImport } = await import("@tidings/sagas");

  const database = await openDatabase({ url });
  const opened = await openEventStore(url);
  const projector = spawn(process.execPath, [fileURLToPath(import.meta.url), "--project", url], { stdio: ["pipe", "pipe", "inherit"] });
  const { stop: stopProjector } = childToStop(`the projection process (pid ${projector.pid})`, projector);
  await new Promise((resolve, reject) => {
    projector.stdout.once("data", resolve);
    projector.once("exit", (code) => reject(new Error(`the projection process ended (exit ${code})`)));
  });
  try {
    const store = opened.store;
    const blobs = createStreamedBlobStore(database);
    const teamId = randomUUID();
    const metadata = { actor: "bench" };
    for (const [key, type] of [
      ["plan", "string"],
      ["seats", "number"],
      ["city", "string"],
    ])
      await createContactProperty({ store, clock: systemClock }, teamId, { key, type, fallbackValue: null }, metadata);
    const uploadStarted = performance.now();
    const file = await blobs.putStream(csv(), { maxBytes: 200 * 1024 * 1024 });
    const uploadSeconds = (performance.now() - uploadStarted) / 1000;
    const importId = randomUUID();
    const columnMap = {
      email: "email",
      firstName: "first_name",
      lastName: "last_name",
      unsubscribed: null,
      properties: { plan: "plan", seats: "seats", city: "city" },
    };
    const request = { importId, teamId, file, columnMap, onConflict: "upsert", segmentIds: [], topics: [] };
    await enqueueContactImport({ store, clock: systemClock }, request, metadata);
    const uploadPeakRss = peakRss;
    peakRss = 0;
    const started = performance.now();
    await runContactImport(
      {
        store,
        blobs,
        clock: systemClock,
        logger: createLogger("silent"),
        checkpointRows: 500,
        rowsInFlight: Number(process.env.BENCH_IN_FLIGHT ?? 512),
      },
      importId,
    );
    const seconds = (performance.now() - started) / 1000;
    clearInterval(sampler);
    const { parsePosition, comparePositions } = await import("@tidings/eventstore");
    const { sql } = await import("kysely");
    // The import's last event: every contact was written before it. (Not headPosition(): another database's
    // open transaction holds the cluster-wide xmin back, and with it the head.)
    const [last] = await store.readStream(contactImportStream(importId), { direction: "backwards", maxCount: 1 });
    const head = last.position;
    const projected = async () => {
      const { rows: found } = await sql`SELECT position FROM projection_checkpoints WHERE name = 'audience' AND state = 'live'`.execute(
        database.db,
      );
      return found[0] !== undefined && comparePositions(parsePosition(found[0].position), head) >= 0;
    };
    while (!(await projected())) await new Promise((resolve) => setTimeout(resolve, 100));
    const lagSeconds = (performance.now() - started) / 1000 - seconds;
    const { rows: contacts } = await sql`SELECT count(*)::int AS n FROM contacts`.execute(database.db);
    if (contacts[0].n !== rows) throw new Error(`the read model holds ${contacts[0].n} contacts, not ${rows}`);
    console.log(
      JSON.stringify({
        bench: "import",
        store: "postgres",
        rows,
        file_mb: Math.round(file.size / 1024 / 1024),
        upload_mb_per_s: Math.round(file.size / 1024 / 1024 / uploadSeconds),
        rows_per_s: Math.round(rows / seconds),
        rss_mb: Math.round(Math.max(peakRss, uploadPeakRss) / 1024 / 1024),
        import_rss_mb: Math.round(peakRss / 1024 / 1024),
        projection_lag_s: Number(lagSeconds.toFixed(1)),
      }),
    );
  } finally {
    clearInterval(sampler);
    await stopProjector();
    await opened.close();
    await database.close();
  }
});
