// Integrity checks at scale: fills a throw-away PostgreSQL event store with BENCH_EVENTS events (default
// 1,000,000; ten per stream, written through the store so every event is hashed as in service), seals it,
// then measures in a child process each (so each reports its own peak RSS): `audit verify` over the whole
// store, `audit export` to a file, and the offline check of that file. One JSON line per step.
// Runs the built packages: `npx tsc -b && node bench/audit.mjs`. The target is 50,000 events/s and under
// 300 MB for verify and export.
import { fork } from "node:child_process";
import { randomUUID } from "node:crypto";
import { createReadStream, createWriteStream, mkdtempSync, rmSync, statSync } from "node:fs";
import { once } from "node:events";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { exportStore, openEventStore, sealKeys, sealStore, verifyExport, verifyStore } from "@tidings/eventstore";
import { withScratchDatabase } from "./support/scratchDatabase.mjs";

const total = Number(process.env.BENCH_EVENTS ?? 1_000_000);
const perStream = 10;
const keys = sealKeys("bench secret");

const steps = {
  async verify(url) {
    const opened = await openEventStore(url);
    try {
      const report = await verifyStore(opened.store, { publicKey: keys.publicKey });
      if (!report.ok) throw new Error(`verify found a break: ${report.break.message}`);
      return report.events;
    } finally {
      await opened.close();
    }
  },
  async export(url, file) {
    const opened = await openEventStore(url);
    const out = createWriteStream(file);
    try {
      const { events } = await exportStore(opened.store, { header: true }, async (lines) => {
        if (!out.write(lines)) await once(out, "drain");
      });
      return events;
    } finally {
      out.end();
      await once(out, "close");
      await opened.close();
    }
  },
  async "verify-file"(_url, file) {
    const { report } = await verifyExport(() => createInterface({ input: createReadStream(file), crlfDelay: Infinity }), keys.publicKey);
    if (!report.ok) throw new Error(`verify --file found a break: ${report.break.message}`);
    return report.events;
  },
};

if (process.argv[2] === "--step") {
  const [, , , step, url, file] = process.argv;
  const started = performance.now();
  const events = await steps[step](url, file);
  const seconds = (performance.now() - started) / 1000;
  process.send({ events, seconds, rssMb: Math.round(process.resourceUsage().maxRSS / 1024) });
  process.exit(0);
}

function inChild(step, url, file) {
  const child = fork(import.meta.filename, ["--step", step, url, file]);
  return new Promise((resolve, reject) => {
    child.once("message", resolve);
    child.once("exit", (code) => code !== 0 && reject(new Error(`${step} exited with ${code}`)));
  });
}

async function fill(store) {
  const started = performance.now();
  let written = 0;
  const writer = async () => {
    while (written < total) {
      const streams = Math.min(50, Math.ceil((total - written) / perStream));
      written += streams * perStream;
      const appends = Array.from({ length: streams }, () => ({
        streamId: `email-${randomUUID()}`,
        expectedRevision: "no_stream",
        events: Array.from({ length: perStream }, (_, i) => ({
          id: randomUUID(),
          type: i === 0 ? "EmailQueued" : "EmailDelivered",
          data: { to: ["someone@example.com"], subject: "Hello", attempt: i, html: "<p>Hi</p>" },
          metadata: { teamId: "team-1", actor: "bench", occurredAt: new Date().toISOString() },
        })),
      }));
      await store.appendMany(appends);
    }
  };
  await Promise.all(Array.from({ length: 8 }, writer));
  return (performance.now() - started) / 1000;
}

await withScratchDatabase("audit", async (url) => {
  const dir = mkdtempSync(join(tmpdir(), "tidings-bench-audit-"));
  try {
    const opened = await openEventStore(url);
    const fillSeconds = await fill(opened.store);
    const sealStarted = performance.now();
    const sealed = await sealStore(opened.store, { keys });
    const sealSeconds = (performance.now() - sealStarted) / 1000;
    await opened.close();
    const line = (step, events, seconds, extra = {}) =>
      console.log(
        JSON.stringify({ bench: "audit", store: "postgres", step, events, events_per_s: Math.round(events / seconds), ...extra }),
      );
    line("fill (appendMany, 8 writers)", total, fillSeconds);
    line("seal", sealed.sealed ? sealed.seal.events : 0, sealSeconds);
    const file = join(dir, "export.jsonl");
    for (const step of ["verify", "export", "verify-file"]) {
      const { events, seconds, rssMb } = await inChild(step, url, file);
      line(step, events, seconds, { rss_mb: rssMb, ...(step === "export" && { file_mb: Math.round(statSync(file).size / 2 ** 20) }) });
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
