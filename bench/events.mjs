// Custom events into automations, end to end. Tidings runs as `tidings serve` child processes (server mode:
// api, projector and sagas, one process each, all running throughout; embedded: one process). This process
// holds the SMTP sink the delivery saga relays to, and drives the load:
//   1. throughput: wrk (Debian's, a C process) at 64 connections POSTs /events/send, closed loop, for an
//      event no automation listens to (the runner still receives each one and looks for automations);
//   2. latency at a fixed rate: BENCH_RATE (default 200) events/s, open loop (support/openLoop.mjs), for an
//      event whose enabled automation sends an email at once. Each event carries the wall-clock time it was
//      due; the email's subject carries it on, so event-to-email is measured from when the event was due to
//      when the sink accepted the email (the SMTP 250), through api, event store, bus, runner, delivery.
// Runs the built packages: `npx tsc -b && node bench/events.mjs`. One JSON line per mode.
// BENCH_SECONDS (default 10) of each measured phase, after a 2 s warm-up; BENCH_MODES (default server);
// BENCH_MAIL_CONCURRENCY (default 16); BENCH_LOG_LEVEL (default warn).
import { execFile, spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { simpleParser } from "mailparser";
import { createLogger, loadConfig, randomBase62 } from "@tidings/core";
import { BOOTSTRAP_TEAM_NAME } from "@tidings/api";
import { serve } from "@tidings/cli";
import { startSmtpSink } from "@tidings/mail/testing";
import { connect } from "nats";
import { setTeamRateLimit } from "../services/cli/dist/commands/teams.js";
import { openLoop } from "./support/openLoop.mjs";
import { withScratchDatabase } from "./support/scratchDatabase.mjs";

const run = promisify(execFile);
const seconds = Number(process.env.BENCH_SECONDS ?? 10);
const modes = (process.env.BENCH_MODES ?? "server").split(",");
const logLevel = process.env.BENCH_LOG_LEVEL ?? "warn";
const mailConcurrency = process.env.BENCH_MAIL_CONCURRENCY ?? "16";
const fixedRate = Number(process.env.BENCH_RATE ?? 200);
const natsUrl = process.env.NATS_URL ?? "nats://127.0.0.1:4222";
const cli = fileURLToPath(new URL("../services/cli/dist/main.js", import.meta.url));
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
  return { requests, accepted: requests - non2xx, non2xx, p50Ms: ms(50), p99Ms: ms(99) };
}

function startRole(role, env) {
  const child = spawn(process.execPath, [cli, "serve", "--role", role], { env: { ...process.env, ...env }, stdio: ["ignore", "ignore", "inherit"] });
  const exited = new Promise((resolve) => child.once("exit", resolve));
  return {
    async stop() {
      if (child.exitCode === null) child.kill("SIGTERM");
      await exited;
    },
  };
}

async function waitUntilReady(baseUrl, deadlineMs = 60_000) {
  const deadline = Date.now() + deadlineMs;
  for (;;) {
    if (await fetch(`${baseUrl}/ready`).then((r) => r.ok, () => false)) return;
    if (Date.now() > deadline) throw new Error(`${baseUrl} did not become ready`);
    await sleep(100);
  }
}

async function withSettings(mode, body) {
  if (mode === "embedded") {
    const dir = mkdtempSync(join(tmpdir(), "tidings-bench-events-"));
    try {
      return await body({ DATA_DIR: dir });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
  const prefix = `bench${randomBase62(8)}`;
  try {
    return await withScratchDatabase("events", (url) => body({ EVENTSTORE_URL: url, TIDINGS_SECRET: "b".repeat(40), NATS_URL: natsUrl, NATS_PREFIX: prefix }));
  } finally {
    const nc = await connect({ servers: natsUrl });
    const jsm = await nc.jetstreamManager();
    for await (const stream of jsm.streams.list()) if (stream.config.name.startsWith(`${prefix}_`)) await jsm.streams.delete(stream.config.name);
    await nc.close();
  }
}

async function prepare(env) {
  const config = loadConfig(env);
  const serving = await serve(config, createLogger(config.LOG_LEVEL), "all");
  try {
    await setTeamRateLimit(serving.runtime.store, BOOTSTRAP_TEAM_NAME, 10_000_000);
  } finally {
    await serving.stop();
  }
}

/** The events, the template and the automation the load runs against, through the API. */
async function define(baseUrl, headers) {
  const call = async (method, path, body) => {
    const res = await fetch(`${baseUrl}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
    return res.json();
  };
  await call("POST", "/events", { name: "bench.throughput" });
  await call("POST", "/events", { name: "bench.signed_up", schema: { t: "string" } });
  const template = await call("POST", "/templates", { name: "Bench", subject: "Bench {{{T}}}", html: "<p>Welcome</p>", from: "Bench <bench@bench.test>", variables: [{ key: "T", type: "string" }] });
  await call("POST", `/templates/${template.id}/publish`);
  await call("POST", "/automations", {
    name: "Bench welcome",
    status: "enabled",
    steps: [
      { key: "start", type: "trigger", config: { event_name: "bench.signed_up" } },
      { key: "welcome", type: "send_email", config: { template: { id: template.id, variables: { T: { var: "payload.t" } } } } },
    ],
    connections: [{ from: "start", to: "welcome" }],
  });
}

const quantile = (sorted, q) => Number(sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)].toFixed(1));

async function bench(mode) {
  const sink = await startSmtpSink();
  try {
    return await withSettings(mode, async (settings) => {
      const token = `re_${randomBase62(40)}`;
      const port = await freePort();
      const env = {
        ...settings,
        PORT: String(port),
        LOG_LEVEL: logLevel,
        TIDINGS_BOOTSTRAP_TOKEN: token,
        TIDINGS_ALLOW_UNVERIFIED_FROM: "true",
        MAIL_TRANSPORT: "smtp",
        SMTP_URL: sink.url,
        MAIL_CONCURRENCY: mailConcurrency,
      };
      await prepare(env);
      const roles = mode === "server" ? [startRole("projector", env), startRole("api", env), startRole("sagas", env)] : [startRole("all", env)];
      try {
        const baseUrl = `http://127.0.0.1:${port}`;
        await waitUntilReady(baseUrl);
        const headers = { "Content-Type": "application/json", Authorization: `Bearer ${token}` };
        await define(baseUrl, headers);
        const url = `${baseUrl}/events/send`;

        const script = join(mkdtempSync(join(tmpdir(), "tidings-bench-wrk-")), "events.lua");
        const body = JSON.stringify({ event: "bench.throughput", email: "reader@example.test", payload: { plan: "pro" } });
        writeFileSync(script, `wrk.method = "POST"\nwrk.body = ${JSON.stringify(body)}\n${Object.entries(headers).map(([k, v]) => `wrk.headers["${k}"] = "${v}"\n`).join("")}`);
        const load = loadavg()[0];
        const warm = await wrk(url, script, 2);
        const measured = await wrk(url, script, seconds);
        // The runner drains the throughput phase's events before the latency phase starts.
        await sleep(5_000);

        const loadFixed = loadavg()[0];
        const fixed = await openLoop({
          url,
          rate: fixedRate,
          seconds,
          headers,
          body: (i, dueAt) => JSON.stringify({ event: "bench.signed_up", email: `b${i % 500}@example.test`, payload: { t: String(Math.round(dueAt)) } }),
        });
        const expected = fixed.requested - fixed.non2xx - fixed.errors;
        await sink.waitForMessages(expected, 120_000);
        const latencies = (await Promise.all(sink.received.map(async (m) => ({ at: m.receivedAt.getTime(), subject: (await simpleParser(m.raw)).subject ?? "" }))))
          .map((m) => m.at - Number(m.subject.split(" ")[1]))
          .sort((a, b) => a - b);
        return {
          bench: "events",
          mode,
          connections,
          seconds,
          accepted_per_s: Math.round(measured.accepted / seconds),
          accept_p50_ms: measured.p50Ms,
          accept_p99_ms: measured.p99Ms,
          non_2xx: warm.non2xx + measured.non2xx + fixed.non2xx + fixed.errors,
          fixed_rate: fixedRate,
          fixed_rate_achieved: fixed.achievedRps,
          fixed_rate_accept_p99_ms: fixed.p99Ms,
          emails: sink.received.length,
          event_to_email_p50_ms: quantile(latencies, 0.5),
          event_to_email_p99_ms: quantile(latencies, 0.99),
          event_to_email_max_ms: quantile(latencies, 1),
          load_1m_before: Number(load.toFixed(2)),
          load_1m_before_fixed_rate: Number(loadFixed.toFixed(2)),
        };
      } finally {
        for (const role of roles.reverse()) await role.stop();
      }
    });
  } finally {
    await sink.close();
  }
}

for (const mode of modes) console.log(JSON.stringify(await bench(mode)));
