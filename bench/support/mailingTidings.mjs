// Tidings serving the benchmarks that send mail: the roles as child processes with throw-away stores, a
// bootstrap key without a rate limit in the way, and a loopback SMTP sink the delivery saga relays to.
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadConfig, randomBase62 } from "@tidings/core";
import { startSmtpSink } from "@tidings/testkit";
import { freePort, prepareBootstrapTeam, startRole, waitForRaisedRateLimit, waitUntilReady, withModeSettings } from "./servedTidings.mjs";

/**
 * The settings of a sending benchmark, from the environment: BENCH_SECONDS (default 10) of each measured phase,
 * BENCH_MODES (default `modes`), BENCH_RATE (default `rate`) of the fixed-rate phase, BENCH_MAIL_CONCURRENCY
 * (default MAIL_CONCURRENCY's own), BENCH_LOG_LEVEL (default warn), BENCH_CPU_PROF and NATS_URL. All but the first three are what
 * `withMailingTidings` takes besides the run's mode, label and roles.
 */
export function sendingBenchSettings({ modes, rate }) {
  return {
    seconds: Number(process.env.BENCH_SECONDS ?? 10),
    modes: (process.env.BENCH_MODES ?? modes).split(","),
    fixedRate: Number(process.env.BENCH_RATE ?? rate),
    tidings: {
      logLevel: process.env.BENCH_LOG_LEVEL ?? "warn",
      mailConcurrency: process.env.BENCH_MAIL_CONCURRENCY ?? String(loadConfig({}).MAIL_CONCURRENCY),
      metrics: false,
      cpuProfileDir: process.env.BENCH_CPU_PROF,
      natsUrl: process.env.NATS_URL ?? "nats://127.0.0.1:4222",
    },
  };
}

/**
 * Runs `body({ sink, baseUrl, headers, startRole, settings, metricsUrls, peakRss })` once the api answers with the
 * raised rate limit: `headers` carry the bootstrap key, `startRole(name)` starts one more role later in the run,
 * `settings` are the mode's store settings, `metricsUrls()` the /metrics of every role started (with
 * `metrics` on), `peakRss()` each role's peak resident set so far (`<role>_peak_rss_mb`, issue #25's targets).
 * `roles` are started first. With `submissionPort`, the api takes SMTP submission on that port.
 * Every role is stopped, in reverse, and the stores and the sink dropped, however the run ends.
 */
export async function withMailingTidings(
  { mode, label, roles, natsUrl, logLevel, mailConcurrency, cpuProfileDir, metrics, submissionPort },
  body,
) {
  const sink = await startSmtpSink();
  try {
    return await withModeSettings(mode, label, natsUrl, async (settings) => {
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
        ...(submissionPort === undefined ? {} : { SUBMISSION_SMTP_PORT: String(submissionPort) }),
      };
      await prepareBootstrapTeam(env);
      // With `metrics`, every role serves /metrics on a port of its own, as compose runs them.
      const metricsPorts = new Map();
      if (metrics) for (const role of ["all", "api", "projector", "sagas"]) metricsPorts.set(role, await freePort());
      const metricsEnv = (role) => (metrics ? { METRICS_PORT: String(metricsPorts.get(role)) } : {});
      const started = [];
      const start = (role) => {
        const child = startRole(role, { ...env, ...metricsEnv(role) }, { cpuProfileDir });
        started.push(child);
        return child;
      };
      roles.forEach(start);
      try {
        const baseUrl = `http://127.0.0.1:${port}`;
        await waitUntilReady(baseUrl);
        await waitForRaisedRateLimit(baseUrl, token);
        const headers = { "Content-Type": "application/json", Authorization: `Bearer ${token}` };
        const metricsUrls = () => started.map((child) => `http://127.0.0.1:${metricsPorts.get(child.role)}/metrics`);
        const peakRss = () => Object.fromEntries(started.map((child) => [`${child.role}_peak_rss_mb`, child.peakRssMb()]));
        return await body({ sink, baseUrl, headers, startRole: start, settings, metricsUrls, peakRss });
      } finally {
        for (const role of started.reverse()) await role.stop();
      }
    });
  } finally {
    await sink.close();
  }
}

/** A wrk script that POSTs `body` with `headers`, in a directory of its own. */
export function postScript(name, body, headers) {
  const script = join(mkdtempSync(join(tmpdir(), "tidings-bench-wrk-")), `${name}.lua`);
  writeFileSync(
    script,
    `wrk.method = "POST"\nwrk.body = ${JSON.stringify(body)}\n${Object.entries(headers)
      .map(([k, v]) => `wrk.headers["${k}"] = "${v}"\n`)
      .join("")}`,
  );
  return script;
}
