// Webhook delivery latency: events are appended straight to the event store at BENCH_RATE per second
// (default 500) for BENCH_SECONDS (default 10), each an email suppressed at once (EmailQueued +
// EmailSuppressed, so no mail is sent), i.e. one `email.suppressed` webhook event. Two webhooks take
// them: a healthy receiver answering at once and a slow one answering after 2 s, both node:http servers
// on loopback in this process. Prints, per mode, the latency from append to the healthy receiver
// (p50/p99/max) and how many reached each. Target: healthy p99 < 500 ms while the slow one lags.
// Server mode runs the api, projector and sagas as processes of their own, as docker-compose does, so the
// sagas' share of the 2 cores is what production gives them; the loop here appends through its own client.
// Runs the built packages: `npx tsc -b && node bench/webhooks.mjs`. BENCH_MODES=embedded,server.
import { randomUUID } from "node:crypto";
import { createServer } from "node:http";
import { loadavg } from "node:os";
import { setTimeout as sleep } from "node:timers/promises";
import { createLogger, formatTimestamp, loadConfig, randomBase62 } from "@tidings/core";
import { BOOTSTRAP_TEAM_NAME, teamIdForName } from "@tidings/api";
import { serve } from "@tidings/cli";
import { openEventStore } from "@tidings/eventstore";
import { freePort, peakRssMb, prepareBootstrapTeam, startRole, waitUntilReady, withModeSettings } from "./support/servedTidings.mjs";

const rate = Number(process.env.BENCH_RATE ?? 500);
const seconds = Number(process.env.BENCH_SECONDS ?? 10);
const modes = (process.env.BENCH_MODES ?? "server,embedded").split(",");
const logLevel = process.env.BENCH_LOG_LEVEL ?? "warn";
const natsUrl = process.env.NATS_URL ?? "nats://127.0.0.1:4222";
const cpuProfileDir = process.env.BENCH_CPU_PROF;
const slowMs = 2_000;

/** A loopback receiver noting when each email's webhook arrived. */
async function receiver(delayMs) {
  const arrivals = new Map();
  const server = createServer((req, res) => {
    const chunks = [];
    req.on("data", (c) => chunks.push(c));
    req.on("end", () => {
      const at = performance.now();
      const id = JSON.parse(Buffer.concat(chunks).toString("utf8")).data.email_id;
      if (!arrivals.has(id)) arrivals.set(id, at);
      setTimeout(() => res.writeHead(200).end("ok"), delayMs);
    });
  });
  server.keepAliveTimeout = 60_000;
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${server.address().port}/hook`,
    arrivals,
    close: () => new Promise((resolve) => (server.closeAllConnections(), server.close(resolve))),
  };
}

/**
 * Tidings as the mode runs it, and the event store to append to. Embedded: one process with every role, this
 * one (PGlite has a single owner). Server: the api, projector and sagas roles as processes of their own,
 * as docker-compose runs them, and this process appending through its own store client.
 */
async function started(mode, env) {
  if (mode === "embedded") {
    const config = loadConfig(env);
    const serving = await serve(config, createLogger(config.LOG_LEVEL), "all");
    // Tidings runs in this process: its peak is the bench's too.
    const peakRss = () => ({ bench_and_all_peak_rss_mb: peakRssMb() });
    return { url: serving.url, store: serving.runtime.store, peakRss, stop: () => serving.stop() };
  }
  await prepareBootstrapTeam(env);
  const roles = ["projector", "sagas", "api"].map((role) => startRole(role, env, { cpuProfileDir }));
  const url = `http://127.0.0.1:${env.PORT}`;
  const opened = await openEventStore(env.EVENTSTORE_URL);
  try {
    await waitUntilReady(url);
  } catch (error) {
    await opened.close();
    for (const role of roles) await role.stop();
    throw error;
  }
  return {
    url,
    store: opened.store,
    peakRss: () => Object.fromEntries(roles.map((r) => [`${r.role}_peak_rss_mb`, r.peakRssMb()])),
    async stop() {
      await opened.close();
      for (const role of roles.reverse()) await role.stop();
    },
  };
}

const percentile = (sorted, p) =>
  sorted.length === 0 ? null : Number(sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))].toFixed(1));

function suppressedEmail(teamId) {
  const emailId = randomUUID();
  const now = formatTimestamp(new Date());
  const metadata = { teamId, actor: "bench" };
  const content = {
    emailId,
    teamId,
    from: "Bench <bench@bench.test>",
    to: ["reader@example.test"],
    cc: [],
    bcc: [],
    replyTo: [],
    subject: "Bench",
    html: "<p>bench</p>",
    text: "bench",
    headers: {},
    tags: [{ name: "bench", value: "webhooks" }],
    attachments: [],
    templateId: null,
    templateVersion: null,
    domainId: null,
    createdAt: now,
  };
  return {
    emailId,
    events: [
      { id: randomUUID(), type: "EmailQueued", data: content, metadata },
      { id: randomUUID(), type: "EmailSuppressed", data: { emailId, recipients: ["reader@example.test"], suppressedAt: now }, metadata },
    ],
  };
}

async function bench(mode) {
  const healthy = await receiver(0);
  const slow = await receiver(slowMs);
  try {
    return await withModeSettings(mode, "webhooks", natsUrl, async (settings) => {
      const token = `re_${randomBase62(40)}`;
      const serving = await started(mode, {
        ...settings,
        PORT: String(await freePort()),
        LOG_LEVEL: logLevel,
        TIDINGS_BOOTSTRAP_TOKEN: token,
        WEBHOOK_ALLOW_PRIVATE: "true",
      });
      try {
        for (const target of [healthy, slow]) {
          const res = await fetch(`${serving.url}/webhooks`, {
            method: "POST",
            headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
            body: JSON.stringify({ endpoint: target.url, events: ["email.suppressed"] }),
          });
          if (res.status !== 201) throw new Error(`webhook create: ${res.status} ${await res.text()}`);
        }
        const { store } = serving;
        const teamId = teamIdForName(BOOTSTRAP_TEAM_NAME);
        const appendedAt = new Map();
        const load = loadavg()[0];
        const total = rate * seconds;
        const tickMs = 20;
        const perTick = (rate * tickMs) / 1000;
        const started = performance.now();
        const appends = [];
        for (let sent = 0, tick = 0; sent < total; tick++) {
          const due = Math.min(total, Math.round((tick + 1) * perTick));
          for (; sent < due; sent++) {
            const { emailId, events } = suppressedEmail(teamId);
            appendedAt.set(emailId, performance.now());
            appends.push(store.append(`email-${emailId}`, events, "no_stream"));
          }
          const wait = started + (tick + 1) * tickMs - performance.now();
          if (wait > 0) await sleep(wait);
        }
        await Promise.all(appends);
        const appendSeconds = (performance.now() - started) / 1000;
        const deadline = Date.now() + 120_000;
        while (healthy.arrivals.size < total && Date.now() < deadline) await sleep(100);
        const latencies = [...healthy.arrivals].map(([id, at]) => at - appendedAt.get(id)).sort((a, b) => a - b);
        // Where in the run the tail is: p99 of the events appended in each 2 s.
        const windows = [];
        for (const [id, at] of healthy.arrivals) {
          const w = Math.floor((appendedAt.get(id) - started) / 2_000);
          (windows[w] ??= []).push(at - appendedAt.get(id));
        }
        return {
          bench: "webhooks",
          mode,
          events_per_s: Math.round(total / appendSeconds),
          seconds,
          healthy_delivered: healthy.arrivals.size,
          expected: total,
          healthy_p50_ms: percentile(latencies, 50),
          healthy_p99_ms: percentile(latencies, 99),
          healthy_max_ms: percentile(latencies, 100),
          healthy_p99_ms_by_2s: windows.map((w) =>
            percentile(
              w.sort((a, b) => a - b),
              99,
            ),
          ),
          slow_received: slow.arrivals.size,
          slow_answer_ms: slowMs,
          load_1m_before: Number(load.toFixed(2)),
          rss_mb: Math.round(process.memoryUsage().rss / 2 ** 20),
          ...serving.peakRss(),
        };
      } finally {
        await serving.stop();
      }
    });
  } finally {
    await healthy.close();
    await slow.close();
  }
}

for (const mode of modes) console.log(JSON.stringify(await bench(mode)));
