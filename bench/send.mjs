// Sending, end to end: wrk (Debian's, a C process) at 64 connections POSTs /emails to Tidings, whose
// delivery saga relays each email to an SMTP sink on loopback (smtp-server, in this process). Prints
// accepted emails/s with accept p50/p99, and delivered emails/s into the sink. Embedded mode is one
// process with every role, delivering while it accepts. Server mode runs the api and projector first
// and starts the sagas role after the load, so its delivered/s is the delivery path alone.
// Runs the built packages: `npx tsc -b && node bench/send.mjs`. One JSON line per mode.
// BENCH_SECONDS (default 10) of measured load after a 2 s warm-up; BENCH_MODES=embedded,server;
// BENCH_MAIL_CONCURRENCY (default 16) SMTP connections; BENCH_LOG_LEVEL (default warn).
import { execFile } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { createLogger, loadConfig, randomBase62 } from "@tidings/core";
import { BOOTSTRAP_TEAM_NAME } from "@tidings/api";
import { serve } from "@tidings/cli";
import { startSmtpSink } from "@tidings/mail/testing";
import { connect } from "nats";
import { setTeamRateLimit } from "../services/cli/dist/commands/teams.js";
import { withScratchDatabase } from "./support/scratchDatabase.mjs";

const run = promisify(execFile);
const seconds = Number(process.env.BENCH_SECONDS ?? 10);
const modes = (process.env.BENCH_MODES ?? "embedded,server").split(",");
const logLevel = process.env.BENCH_LOG_LEVEL ?? "warn";
const mailConcurrency = process.env.BENCH_MAIL_CONCURRENCY ?? "16";
const natsUrl = process.env.NATS_URL ?? "nats://127.0.0.1:4222";
const connections = 64;
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

const freePort = () =>
  new Promise((resolve) => {
    const probe = createServer().listen(0, "127.0.0.1", () => {
      const { port } = probe.address();
      probe.close(() => resolve(port));
    });
  });

/** wrk's report: requests, non-2xx answers, and the p50/p99 latency in milliseconds. */
async function wrk(url, script, duration) {
  const args = ["-t1", `-c${connections}`, `-d${duration}s`, "--latency", "-s", script, url];
  const { stdout } = await run("wrk", args, { maxBuffer: 1 << 20 });
  const ms = (label) => {
    const m = new RegExp(`^\\s+${label}%\\s+([\\d.]+)(us|ms|s)\\s*$`, "m").exec(stdout);
    if (!m) throw new Error(`could not read wrk's report:\n${stdout}`);
    return Number((Number(m[1]) * { us: 0.001, ms: 1, s: 1000 }[m[2]]).toFixed(2));
  };
  const requests = Number(/(\d+) requests in/.exec(stdout)?.[1] ?? 0);
  const non2xx = Number(/Non-2xx or 3xx responses:\s+(\d+)/.exec(stdout)?.[1] ?? 0);
  return { requests, accepted: requests - non2xx, non2xx, rps: Number(/Requests\/sec:\s+([\d.]+)/.exec(stdout)?.[1]), p50Ms: ms(50), p99Ms: ms(99) };
}

async function withSettings(mode, body) {
  if (mode === "embedded") {
    const dir = mkdtempSync(join(tmpdir(), "tidings-bench-send-"));
    try {
      return await body({ DATA_DIR: dir });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
  const prefix = `bench${randomBase62(8)}`;
  try {
    return await withScratchDatabase("send", (url) =>
      body({ EVENTSTORE_URL: url, TIDINGS_SECRET: "b".repeat(40), NATS_URL: natsUrl, NATS_PREFIX: prefix }),
    );
  } finally {
    const nc = await connect({ servers: natsUrl });
    const jsm = await nc.jetstreamManager();
    for await (const stream of jsm.streams.list()) if (stream.config.name.startsWith(`${prefix}_`)) await jsm.streams.delete(stream.config.name);
    await nc.close();
  }
}

async function bench(mode) {
  const sink = await startSmtpSink();
  try {
    return await withSettings(mode, async (settings) => {
      const token = `re_${randomBase62(40)}`;
      const config = loadConfig({
        ...settings,
        PORT: String(await freePort()),
        LOG_LEVEL: logLevel,
        TIDINGS_BOOTSTRAP_TOKEN: token,
        TIDINGS_ALLOW_UNVERIFIED_FROM: "true",
        MAIL_TRANSPORT: "smtp",
        SMTP_URL: sink.url,
        MAIL_CONCURRENCY: mailConcurrency,
      });
      const logger = createLogger(config.LOG_LEVEL);
      // Server mode can run the roles apart: the sagas start after the load, and drain the backlog alone.
      const split = mode === "server";
      const servings = split ? [await serve(config, logger, "projector"), await serve(config, logger, "api")] : [await serve(config, logger, "all")];
      try {
        const api = servings.find((s) => s.url);
        await setTeamRateLimit(api.runtime.store, BOOTSTRAP_TEAM_NAME, 10_000_000);
        await sleep(1_000);
        const script = join(mkdtempSync(join(tmpdir(), "tidings-bench-wrk-")), "send.lua");
        const body = JSON.stringify({ from: "Bench <bench@bench.test>", to: ["reader@example.test"], subject: "Bench", html: "<p>Hello from <b>bench/send</b></p>" });
        writeFileSync(
          script,
          `wrk.method = "POST"\nwrk.body = ${JSON.stringify(body)}\nwrk.headers["Content-Type"] = "application/json"\nwrk.headers["Authorization"] = "Bearer ${token}"\n`,
        );
        const url = `${api.url}/emails`;
        const load = loadavg()[0];
        const startedAt = Date.now();
        const warm = await wrk(url, script, 2);
        const measured = await wrk(url, script, seconds);
        const accepted = warm.accepted + measured.accepted;
        const sagasStartedAt = Date.now();
        if (split) servings.push(await serve(config, logger, "sagas"));
        await sink.waitForMessages(accepted, 600_000);
        const lastAt = sink.received[accepted - 1].receivedAt.getTime();
        return {
          bench: "send",
          mode,
          connections,
          seconds,
          mail_concurrency: Number(mailConcurrency),
          accepted_per_s: Math.round(measured.accepted / seconds),
          accept_p50_ms: measured.p50Ms,
          accept_p99_ms: measured.p99Ms,
          non_2xx: warm.non2xx + measured.non2xx,
          accepted_total: accepted,
          delivered_total: sink.received.length,
          // Embedded: sagas ran during the load, so this is accept and delivery together. Server: the
          // sagas process started after the load, so this is delivery alone, draining the backlog.
          delivery: split ? "backlog after load" : "during load",
          delivered_per_s: Math.round(accepted / ((lastAt - (split ? sagasStartedAt : startedAt)) / 1000)),
          load_1m_before: Number(load.toFixed(2)),
          rss_mb: Math.round(process.memoryUsage().rss / 2 ** 20),
        };
      } finally {
        for (const serving of servings.reverse()) await serving.stop();
      }
    });
  } finally {
    await sink.close();
  }
}

for (const mode of modes) console.log(JSON.stringify(await bench(mode)));
