// Rebuild speed of the streams projection (3 read-model tables) over 1,000,000 events on PostgreSQL.
// Appends the events to a throw-away database (many streams, a few categories and types), then rebuilds
// in a child process, so the peak RSS reported is the rebuild's alone. Runs the built packages:
// `npx tsc -b && node bench/projection-rebuild.mjs`. BENCH_EVENTS (default 1,000,000) sets the size.
// Targets: ≥ 30,000 events/s, peak RSS < 300 MB.
//
// The synthetic events above hold no personal data, so sealing (docs/privacy.md) never touches them. The
// cost of sealing is measured on events like the real traffic instead (support/personalEvents.mjs: per
// person ContactCreated, then two emails, EmailQueued with to/subject/html/text, EmailSent, EmailDelivered
// with recipients and reply, EmailOpened on one), rebuilding the projections that read them (streams,
// emails, contacts, one after another, each over the whole log) in the same run, twice:
//   "plain":  appended through the store as it keeps events, and rebuilt reading that store (before #23);
//   "sealed": the same events appended through `createPrivacy(...).sealing(store)`, so the store holds
//             ciphertext and a key table, and rebuilt reading through the sealing store, which opens the
//             keys a page needs in one lookup, with a cold key cache (a fresh process, as a rebuild is).
// One JSON line per variant (`"bench": "projection-rebuild-personal"`), then one with the ratios
// sealed/plain (`"bench": "projection-rebuild-sealing-cost"`); the emails and contacts checksums of the
// two must match, or the sealed rebuild read something else than was written. Beside events/s, each
// variant gives the rebuilding process's CPU per event read, and the ratio line gives plain/sealed of it
// (`rebuild_events_per_cpu_s`): on a machine shared with other work, the two rebuilds' wall times are not
// taken under the same load, their CPU times nearly are. It leaves PostgreSQL's side out, which both share.
// BENCH_SEALED: `both` (default) runs the synthetic bench and then the comparison; `only` the comparison
// alone; `off` the synthetic bench alone. BENCH_SEALED_EVENTS (default 100,000, a multiple of 8) sizes the
// comparison, smaller than BENCH_EVENTS because each variant appends its events one stream at a time (64 in
// flight, as commands do) and reads them three times: at 100,000 the comparison alone took 6 minutes on
// 2 busy cores, 3 of them the sealed append; at 1,000,000 it would take about an hour.
// BENCH_CPU_PROF=<dir> writes a CPU profile of each comparison rebuild there (node --cpu-prof).
import { spawnSync } from "node:child_process";
import { randomUUID } from "node:crypto";
import { fileURLToPath } from "node:url";
import { eventsPerPerson, personStreams } from "./support/personalEvents.mjs";
import { withScratchDatabase } from "./support/scratchDatabase.mjs";

const totalEvents = Number(process.env.BENCH_EVENTS ?? 1_000_000);
const perStream = 20;
const writers = 8;
const categories = ["email", "contact", "broadcast", "domain", "webhook"];
const types = ["Queued", "Sent", "Delivered", "Opened", "Clicked"];
const sealedMode = process.env.BENCH_SEALED ?? "both";
const personalEvents = Number(process.env.BENCH_SEALED_EVENTS ?? 100_000);
const personalProjections = ["streams", "emails", "contacts"];
/** One stream an append, as commands append; many in flight, so the store's group commit batches them. */
const personalWriters = 64;
/** The bench's own TIDINGS_SECRET: the key table it makes is dropped with the scratch database. */
const benchSecret = "bench-projection-rebuild-secret-0123456789abcdef0123456789abcdef";

if (!["both", "only", "off"].includes(sealedMode)) throw new Error(`BENCH_SEALED must be both, only or off, not ${sealedMode}`);
if (process.argv[2] === "--rebuild") {
  await rebuild(process.argv[3]);
} else if (process.argv[2] === "--rebuild-personal") {
  await rebuildPersonal(process.argv[3], process.argv[4]);
} else {
  if (sealedMode !== "only") await main();
  if (sealedMode !== "off") await comparePersonal();
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

/** The store as the variant reads and writes it: the plain store, or the sealing store over it. */
async function storeOf(opened, variant) {
  if (variant === "plain") return opened.store;
  const { createPrivacy } = await import("@tidings/privacy");
  const privacy = await createPrivacy(opened.database, benchSecret);
  return privacy.sealing(opened.store);
}

async function comparePersonal() {
  const results = {};
  for (const variant of ["plain", "sealed"]) {
    results[variant] = await withScratchDatabase(`rebuild_${variant}`, async (url) => {
      const appended = await appendPersonal(url, variant);
      const child = spawnSync(
        process.execPath,
        [
          ...(process.env.BENCH_CPU_PROF ? ["--cpu-prof", `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`] : []),
          fileURLToPath(import.meta.url),
          "--rebuild-personal",
          url,
          variant,
        ],
        {
          stdio: ["ignore", "pipe", "inherit"],
          encoding: "utf8",
        },
      );
      if (child.status !== 0) throw new Error(`the ${variant} rebuild failed (exit ${child.status})`);
      const result = JSON.parse(child.stdout.trim().split("\n").at(-1));
      return { ...result, append_events_per_s: appended.eventsPerSecond };
    });
    console.log(JSON.stringify({ bench: "projection-rebuild-personal", store: "postgres", variant, ...results[variant] }));
  }
  const { plain, sealed } = results;
  const ratio = (a, b) => Number((a / b).toFixed(3));
  const ratios = { rebuild_events_per_s: ratio(sealed.events_per_s, plain.events_per_s) };
  for (const name of personalProjections)
    ratios[`${name}_events_per_s`] = ratio(sealed.projections[name].events_per_s, plain.projections[name].events_per_s);
  ratios.append_events_per_s = ratio(sealed.append_events_per_s, plain.append_events_per_s);
  ratios.rebuild_events_per_cpu_s = ratio(plain.cpu_us_per_event, sealed.cpu_us_per_event);
  console.log(
    JSON.stringify({
      bench: "projection-rebuild-sealing-cost",
      events: plain.events,
      sealed_over_plain: ratios,
      rebuild_slower_pct: Number(((1 - ratios.rebuild_events_per_s) * 100).toFixed(1)),
      checksums_match: ["emails", "contacts"].every((n) => plain.projections[n].checksum === sealed.projections[n].checksum),
    }),
  );
}

async function appendPersonal(url, variant) {
  const { openEventStore } = await import("@tidings/eventstore");
  const opened = await openEventStore(url);
  try {
    const store = await storeOf(opened, variant);
    const people = Math.floor(personalEvents / eventsPerPerson);
    let next = 0;
    const started = performance.now();
    await Promise.all(
      Array.from({ length: personalWriters }, async () => {
        for (let n = next++; n < people; n = next++)
          for (const { streamId, events } of personStreams(n)) await store.append(streamId, events, "no_stream");
      }),
    );
    const seconds = (performance.now() - started) / 1000;
    const events = people * eventsPerPerson;
    process.stderr.write(`${variant}: appended ${events} personal events in ${seconds.toFixed(1)} s\n`);
    return { eventsPerSecond: Math.round(events / seconds) };
  } finally {
    await opened.close();
  }
}

/** Rebuilds streams, emails and contacts one after another, each from the first event, through the variant's store. */
async function rebuildPersonal(url, variant) {
  const { openEventStore } = await import("@tidings/eventstore");
  const projections = await import("@tidings/projections");
  const byName = {
    streams: projections.streamsProjection,
    emails: projections.emailsProjection,
    contacts: projections.contactsProjection,
  };
  const opened = await openEventStore(url);
  try {
    const store = await storeOf(opened, variant);
    const results = {};
    let events = 0;
    let seconds = 0;
    const cpuBefore = process.cpuUsage();
    for (const name of personalProjections) {
      const cpuAtStart = process.cpuUsage();
      let lastLog = 0;
      const result = await projections.rebuildProjection({
        store,
        database: opened.database,
        projection: byName[name],
        onProgress(p) {
          if (Date.now() - lastLog < 5_000) return;
          lastLog = Date.now();
          process.stderr.write(
            `${variant} ${name}: ${p.events} events, ${Math.round(p.eventsPerSecond)} events/s, ${(p.fraction * 100).toFixed(1)}%\n`,
          );
        },
      });
      const cpuUsed = process.cpuUsage(cpuAtStart);
      results[name] = {
        events_per_s: Math.round(result.eventsPerSecond),
        cpu_us_per_event: Number(((cpuUsed.user + cpuUsed.system) / result.events).toFixed(1)),
        seconds: Number(result.seconds.toFixed(2)),
        checksum: result.checksum.checksum,
      };
      events = result.events;
      seconds += result.seconds;
    }
    const cpu = process.cpuUsage(cpuBefore);
    console.log(
      JSON.stringify({
        events,
        // Every event read once per projection, over the three rebuilds' time.
        events_per_s: Math.round((events * personalProjections.length) / seconds),
        // This process's CPU (user and system) per event read: unlike events/s, hardly moved by other load
        // on the machine, which the plain and sealed rebuilds, one after the other, do not share alike.
        cpu_us_per_event: Number(((cpu.user + cpu.system) / (events * personalProjections.length)).toFixed(1)),
        seconds: Number(seconds.toFixed(2)),
        peak_rss_mb: Math.round(process.resourceUsage().maxRSS / 1024),
        projections: results,
      }),
    );
  } finally {
    await opened.close();
  }
}
