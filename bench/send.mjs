// Sending, end to end. Tidings runs as `tidings serve` child processes, as deployed; this process holds
// the SMTP sink (smtp-server on loopback) that the delivery saga relays to, and drives the load:
//   1. throughput: wrk (Debian's, a C process) at 64 connections POSTs /emails, closed loop;
//   2. latency at a fixed rate: BENCH_RATE (default 500) requests/s, open loop (support/openLoop.mjs),
//      each latency counted from when its request was due, so a stall is not hidden.
// Then it reports accepted emails/s, accept p50/p99 of both phases, and delivered emails/s into the sink.
// Embedded mode is one process with every role, delivering while it accepts. Server mode runs one
// process per role: api and projector during the load, then the sagas alone, so its delivered/s is the
// delivery path alone, draining the backlog (measured from the first message at the sink to the last).
// Runs the built packages: `npx tsc -b && node bench/send.mjs`. One JSON line per mode.
// BENCH_SECONDS (default 10) of each measured phase, after a 2 s warm-up; BENCH_MODES=embedded,server;
// BENCH_MAIL_CONCURRENCY (default 16) SMTP connections; BENCH_LOG_LEVEL (default warn);
// BENCH_CPU_PROF=<dir> writes a CPU profile of each Tidings process there (node --cpu-prof).
import { execFile, spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
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
const modes = (process.env.BENCH_MODES ?? "embedded,server").split(",");
const logLevel = process.env.BENCH_LOG_LEVEL ?? "warn";
const mailConcurrency = process.env.BENCH_MAIL_CONCURRENCY ?? "16";
const fixedRate = Number(process.env.BENCH_RATE ?? 500);
const cpuProfileDir = process.env.BENCH_CPU_PROF;
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

/** `tidings serve --role <role>` as a child process; `stop()` drains it with SIGTERM, as an operator would. */
function startRole(role, env) {
  const args = [...(cpuProfileDir ? ["--cpu-prof", `--cpu-prof-dir=${cpuProfileDir}`, `--cpu-prof-name=${role}-${Date.now()}.cpuprofile`] : []), cli, "serve", "--role", role];
  const child = spawn(process.execPath, args, { env: { ...process.env, ...env }, stdio: ["ignore", "ignore", "inherit"] });
  const exited = new Promise((resolve) => child.once("exit", resolve));
  return {
    exited,
    async stop() {
      if (child.exitCode === null) child.kill("SIGTERM");
      await exited;
    },
  };
}

async function waitUntilReady(baseUrl, deadlineMs = 60_000) {
  const deadline = Date.now() + deadlineMs;
  for (;;) {
    const ready = await fetch(`${baseUrl}/ready`).then((r) => r.ok, () => false);
    if (ready) return;
    if (Date.now() > deadline) throw new Error(`${baseUrl} did not become ready`);
    await sleep(100);
  }
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

/** Creates the first team and key, and lifts the team's rate limit out of the way: one start in this process. */
async function prepare(env) {
  const config = loadConfig(env);
  const serving = await serve(config, createLogger(config.LOG_LEVEL), "all");
  try {
    await setTeamRateLimit(serving.runtime.store, BOOTSTRAP_TEAM_NAME, 10_000_000);
  } finally {
    await serving.stop();
  }
}

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
      const split = mode === "server";
      const roles = split ? [startRole("projector", env), startRole("api", env)] : [startRole("all", env)];
      try {
        const baseUrl = `http://127.0.0.1:${port}`;
        await waitUntilReady(baseUrl);
        const script = join(mkdtempSync(join(tmpdir(), "tidings-bench-wrk-")), "send.lua");
        const headers = { "Content-Type": "application/json", Authorization: `Bearer ${token}` };
        const body = JSON.stringify({ from: "Bench <bench@bench.test>", to: ["reader@example.test"], subject: "Bench", html: "<p>Hello from <b>bench/send</b></p>" });
        writeFileSync(script, `wrk.method = "POST"\nwrk.body = ${JSON.stringify(body)}\n${Object.entries(headers).map(([k, v]) => `wrk.headers["${k}"] = "${v}"\n`).join("")}`);
        const url = `${baseUrl}/emails`;
        const load = loadavg()[0];
        const startedAt = Date.now();
        const warm = await wrk(url, script, 2);
        const measured = await wrk(url, script, seconds);
        const fixed = await openLoop({ url, rate: fixedRate, seconds, headers, body });
        const accepted = warm.accepted + measured.accepted + fixed.requested - fixed.non2xx - fixed.errors;
        if (split) roles.push(startRole("sagas", env));
        await sink.waitForMessages(accepted, 600_000);
        const firstAt = sink.received[0].receivedAt.getTime();
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
          fixed_rate: fixedRate,
          fixed_rate_achieved: fixed.achievedRps,
          fixed_rate_p50_ms: fixed.p50Ms,
          fixed_rate_p99_ms: fixed.p99Ms,
          fixed_rate_max_ms: fixed.maxMs,
          non_2xx: warm.non2xx + measured.non2xx + fixed.non2xx + fixed.errors,
          accepted_total: accepted,
          delivered_total: sink.received.length,
          // Embedded: the sagas ran during the load, so this is accept and delivery together. Server: the
          // sagas process started after the load, so this is delivery alone, draining the backlog.
          delivery: split ? "backlog after load" : "during load",
          delivered_per_s: split ? Math.round((accepted - 1) / ((lastAt - firstAt) / 1000)) : Math.round(accepted / ((lastAt - startedAt) / 1000)),
          load_1m_before: Number(load.toFixed(2)),
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
