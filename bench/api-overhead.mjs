// What the API's middleware costs: wrk (Debian's, a C process) at 64 connections against a bare fastify
// route, the same no-op route in the HTTP layer alone (`buildTransportApp`: request ids, error shape, zod
// serialisation, pino at BENCH_LOG_LEVEL), then behind the whole stack of the real app (auth, rate limit,
// stored request log), and `GET /api-keys`: all served by this one process, one after another. The last two
// run again on an app that records Prometheus metrics (METRICS_PORT on), alternated with the first: what
// metrics cost a request.
// In server mode it also times the rate limit's PostgreSQL upsert on its own, the per-request price of a
// limit shared across api instances.
// Runs the built packages: `npx tsc -b && node bench/api-overhead.mjs`. One JSON line per mode.
// BENCH_SECONDS (default 10) per wrk run; BENCH_MODES=embedded,server; BENCH_LOG_LEVEL (default warn).
// BENCH_CPU_PROF=<dir> writes a CPU profile of each measured run there (`scripts/cpuProfileSummary.mjs`
// summarises one); the profiler slows the process, so a profiled run's figures are not the bench's.
import { execFile } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { Session } from "node:inspector/promises";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import Fastify from "fastify";
import { z } from "zod";
import { newId } from "@tidings/core";
import { buildApp, buildTransportApp, createTeamKey, databaseRateBuckets } from "@tidings/api";
import { createPrometheusMetrics } from "@tidings/metrics";
import { benchKey, withInProcessApi } from "./support/inProcessApi.mjs";
import { withScratchDatabase } from "./support/scratchDatabase.mjs";

const run = promisify(execFile);
const seconds = Number(process.env.BENCH_SECONDS ?? 10);
const modes = (process.env.BENCH_MODES ?? "embedded,server").split(",");
const logLevel = process.env.BENCH_LOG_LEVEL ?? "warn";
const connections = 64;
const cpuProfileDir = process.env.BENCH_CPU_PROF;
let profiled = 0;

/** wrk's own report, parsed: requests per second and the 99th percentile latency in milliseconds. */
async function wrk(url, headers = {}, duration = seconds) {
  const args = [
    "-t1",
    `-c${connections}`,
    `-d${duration}s`,
    "--latency",
    ...Object.entries(headers).flatMap(([k, v]) => ["-H", `${k}: ${v}`]),
    url,
  ];
  const { stdout } = await run("wrk", args, { maxBuffer: 1 << 20 });
  const rps = Number(/Requests\/sec:\s+([\d.]+)/.exec(stdout)?.[1]);
  const p99 = /^\s+99%\s+([\d.]+)(us|ms|s)\s*$/m.exec(stdout);
  const non2xx = Number(/Non-2xx or 3xx responses:\s+(\d+)/.exec(stdout)?.[1] ?? 0);
  const requests = Number(/(\d+) requests in/.exec(stdout)?.[1] ?? 0);
  if (!Number.isFinite(rps) || !p99) throw new Error(`could not read wrk's report:\n${stdout}`);
  const p99Ms = Number(p99[1]) * { us: 0.001, ms: 1, s: 1000 }[p99[2]];
  return { rps: Math.round(rps), p99Ms: Number(p99Ms.toFixed(2)), non2xx, requests };
}

/**
 * A 2 s warm-up, then the measured run; `requests` counts both, as the app answered both. `cpuUs` is this
 * process's CPU time per request of the measured run: on a shared machine throughput follows what the
 * neighbours leave, while the CPU a request takes barely moves.
 */
async function measure(url, headers, label) {
  const warm = await wrk(url, headers, 2);
  const stopProfile = cpuProfileDir ? await startProfile(label) : async () => {};
  const before = process.cpuUsage();
  const measured = await wrk(url, headers);
  const cpu = process.cpuUsage(before);
  await stopProfile();
  const cpuUs = Number(((cpu.user + cpu.system) / measured.requests).toFixed(1));
  return { ...measured, cpuUs, requests: warm.requests + measured.requests };
}

/** Profiles this process until the returned function is called, into BENCH_CPU_PROF/<nn>-<label>.cpuprofile. */
async function startProfile(label) {
  const session = new Session();
  session.connect();
  await session.post("Profiler.enable");
  await session.post("Profiler.start");
  return async () => {
    const { profile } = await session.post("Profiler.stop");
    session.disconnect();
    mkdirSync(cpuProfileDir, { recursive: true });
    writeFileSync(join(cpuProfileDir, `${String(++profiled).padStart(2, "0")}-${label}.cpuprofile`), JSON.stringify(profile));
  };
}

/**
 * The same route on two apps, without and with metrics, measured in the order A B B A: a machine whose speed
 * drifts during the bench (a neighbour starting or stopping) then weighs on both alike, where measuring one
 * after the other gave metrics a cost below zero. Each side is the mean of its two runs.
 */
async function alternated(plainUrl, measuredUrl, headers, label) {
  const runs = [];
  for (const url of [plainUrl, measuredUrl, measuredUrl, plainUrl]) {
    runs.push(await measure(url, headers, url === plainUrl ? label : `${label}-metrics`));
  }
  const merged = (a, b) => ({
    rps: Math.round((a.rps + b.rps) / 2),
    p99Ms: Number(((a.p99Ms + b.p99Ms) / 2).toFixed(2)),
    cpuUs: Number(((a.cpuUs + b.cpuUs) / 2).toFixed(1)),
    non2xx: a.non2xx + b.non2xx,
    requests: a.requests + b.requests,
  });
  return { plain: merged(runs[0], runs[3]), measured: merged(runs[1], runs[2]) };
}

async function withSettings(mode, body) {
  if (mode === "embedded") {
    const dir = mkdtempSync(join(tmpdir(), "tidings-bench-api-"));
    try {
      return await body({ DATA_DIR: dir });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
  return withScratchDatabase("api", (url) => body({ EVENTSTORE_URL: url, TIDINGS_SECRET: "b".repeat(40) }));
}

/** Sequential latency and 64-way throughput of the bucket upsert, all on one team's row (the worst case). */
async function rateLimitCost(database) {
  const buckets = databaseRateBuckets(database);
  const teamId = newId();
  for (let i = 0; i < 200; i++) await buckets.take(teamId, 1_000_000);
  const sequential = 2000;
  let started = performance.now();
  for (let i = 0; i < sequential; i++) await buckets.take(teamId, 1_000_000);
  const takeUs = ((performance.now() - started) * 1000) / sequential;
  let takes = 0;
  started = performance.now();
  const until = started + 3000;
  await Promise.all(
    Array.from({ length: connections }, async () => {
      while (performance.now() < until) {
        await buckets.take(teamId, 1_000_000);
        takes++;
      }
    }),
  );
  return { rate_limit_take_us: Math.round(takeUs), rate_limit_takes_per_s: Math.round(takes / ((performance.now() - started) / 1000)) };
}

async function bench(mode) {
  return withSettings(mode, (settings) =>
    withInProcessApi({ ...settings, LOG_LEVEL: logLevel }, async ({ logger, runtime, services, stops }) => {
      const noop = (app) => app.get("/noop", { schema: { response: { 200: z.object({ ok: z.boolean() }) } } }, async () => ({ ok: true }));
      const app = buildApp({ logger, services, readiness: runtime.readiness, routes: [noop] });
      await app.listen({ port: 0, host: "127.0.0.1" });
      stops.push(() => app.close());
      const transport = buildTransportApp({ logger, readiness: {}, routes: [noop] });
      await transport.listen({ port: 0, host: "127.0.0.1" });
      stops.push(() => transport.close());
      const prometheus = createPrometheusMetrics();
      const measuredApp = buildApp({ logger, services, readiness: runtime.readiness, routes: [noop], metrics: prometheus.metrics });
      await measuredApp.listen({ port: 0, host: "127.0.0.1" });
      stops.push(() => measuredApp.close());
      const bare = Fastify();
      bare.get("/bare", async () => ({ ok: true }));
      await bare.listen({ port: 0, host: "127.0.0.1" });
      stops.push(() => bare.close());

      const key = await benchKey(services, runtime.store);
      for (let i = 0; i < 3; i++)
        await createTeamKey(services, { team: "bench", name: `listed ${i}`, permission: "full_access", domainId: null }, { actor: "cli" });

      const auth = { Authorization: `Bearer ${key.token}` };
      const appUrl = `http://127.0.0.1:${app.server.address().port}`;
      const load = loadavg()[0];
      const bareRun = await measure(`http://127.0.0.1:${bare.server.address().port}/bare`, {}, `${mode}-bare`);
      const transportRun = await measure(`http://127.0.0.1:${transport.server.address().port}/noop`, {}, `${mode}-transport`);
      const measuredUrl = `http://127.0.0.1:${measuredApp.server.address().port}`;
      const noopRuns = await alternated(`${appUrl}/noop`, `${measuredUrl}/noop`, auth, `${mode}-noop`);
      const keysRuns = await alternated(`${appUrl}/api-keys`, `${measuredUrl}/api-keys`, auth, `${mode}-api-keys`);
      const [noopRun, noopMeasuredRun, keysRun, keysMeasuredRun] = [noopRuns.plain, noopRuns.measured, keysRuns.plain, keysRuns.measured];
      // The requests were counted: the metrics run measured recording, not an instrument left out.
      const counted = (await prometheus.registry.getSingleMetric("tidings_http_requests_total")?.get())?.values.reduce(
        (n, v) => n + v.value,
        0,
      );
      await app.requestLogs.flush();
      await measuredApp.requestLogs.flush();
      const logged = await runtime.database.db
        .selectFrom("api_request_logs")
        .select((eb) => eb.fn.countAll().as("n"))
        .executeTakeFirst();
      const cost = mode === "server" ? await rateLimitCost(runtime.database) : {};
      return {
        bench: "api-overhead",
        mode,
        connections,
        seconds,
        log_level: logLevel,
        bare_rps: bareRun.rps,
        bare_p99_ms: bareRun.p99Ms,
        bare_cpu_us: bareRun.cpuUs,
        transport_noop_rps: transportRun.rps,
        transport_cpu_us: transportRun.cpuUs,
        noop_rps: noopRun.rps,
        noop_p99_ms: noopRun.p99Ms,
        api_keys_rps: keysRun.rps,
        api_keys_p99_ms: keysRun.p99Ms,
        transport_ratio: Number((transportRun.rps / bareRun.rps).toFixed(3)),
        noop_ratio: Number((noopRun.rps / bareRun.rps).toFixed(3)),
        api_keys_ratio: Number((keysRun.rps / bareRun.rps).toFixed(3)),
        // The same ratios by this process's CPU per request (bare / other): on a loaded machine every app
        // waits alike for a core and the req/s ratios drift towards 1; CPU per request follows each one's work.
        noop_cpu_ratio: Number((bareRun.cpuUs / noopRun.cpuUs).toFixed(3)),
        api_keys_cpu_ratio: Number((bareRun.cpuUs / keysRun.cpuUs).toFixed(3)),
        metrics_noop_rps: noopMeasuredRun.rps,
        metrics_api_keys_rps: keysMeasuredRun.rps,
        // The share of throughput metrics take: 1 - with / without, in the same run (issue #26's target: under 5 %).
        metrics_noop_cost: Number((1 - noopMeasuredRun.rps / noopRun.rps).toFixed(3)),
        metrics_api_keys_cost: Number((1 - keysMeasuredRun.rps / keysRun.rps).toFixed(3)),
        // The same by CPU time per request, which a busy machine disturbs far less: with / without - 1.
        noop_cpu_us: noopRun.cpuUs,
        metrics_noop_cpu_us: noopMeasuredRun.cpuUs,
        api_keys_cpu_us: keysRun.cpuUs,
        metrics_api_keys_cpu_us: keysMeasuredRun.cpuUs,
        metrics_noop_cpu_cost: Number((noopMeasuredRun.cpuUs / noopRun.cpuUs - 1).toFixed(3)),
        metrics_api_keys_cpu_cost: Number((keysMeasuredRun.cpuUs / keysRun.cpuUs - 1).toFixed(3)),
        metrics_requests_counted: counted ?? 0,
        non_2xx: noopRun.non2xx + keysRun.non2xx + noopMeasuredRun.non2xx + keysMeasuredRun.non2xx,
        // Every request the app answered (warm-ups included) should have its stored log row.
        app_requests: noopRun.requests + keysRun.requests + noopMeasuredRun.requests + keysMeasuredRun.requests,
        logs_stored: Number(logged.n),
        ...cost,
        load_1m_before: Number(load.toFixed(2)),
        rss_mb: Math.round(process.memoryUsage().rss / 2 ** 20),
        // The api runs in this process: its peak resident set (VmHWM) is the bench's.
        peak_rss_mb: Math.round(process.resourceUsage().maxRSS / 1024),
      };
    }),
  );
}

for (const mode of modes) console.log(JSON.stringify(await bench(mode)));
