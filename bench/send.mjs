// Sending, end to end. Tidings runs as `tidings serve` child processes, as deployed; this process holds
// the SMTP sink (smtp-server on loopback) that the delivery saga relays to, and drives the load:
//   1. throughput: wrk (Debian's, a C process) at 64 connections POSTs /emails, closed loop;
//   2. latency at a fixed rate: BENCH_RATE (default 500) requests/s, open loop (support/openLoop.mjs),
//      each latency counted from when its request was due, so a stall is not hidden.
// Then it reports accepted emails/s, accept p50/p99 of both phases, and delivered emails/s into the sink;
// in server mode also the sagas process's CPU milliseconds per email over the same window.
// Embedded mode is one process with every role, delivering while it accepts. Server mode runs one
// process per role: api and projector during the load, then the sagas alone, so its delivered/s is the
// delivery path alone, draining the backlog (measured from the first message at the sink to the last).
// Runs the built packages: `npx tsc -b && node bench/send.mjs`. One JSON line per mode.
// BENCH_SECONDS (default 10) of each measured phase, after a 2 s warm-up; BENCH_MODES=embedded,server;
// BENCH_MAIL_CONCURRENCY (default MAIL_CONCURRENCY's own, 32) SMTP connections (server mode on 2 shared cores
// delivered 180 and 199 emails/s at 4, 236 and 269 at 16, 276 and 288 at 32, 279 and 319 at 64, alternated,
// on 2026-11-28); BENCH_LOG_LEVEL (default warn);
// BENCH_CPU_PROF=<dir> writes a CPU profile of each Tidings process there (node --cpu-prof).
// BENCH_METRICS=off (default), on, or both: with both, each mode runs four times, metrics off, on, on, off
// (so a machine that speeds up or slows down during the bench weighs on both alike), and a last line per
// mode gives what metrics cost: 1 - on / off, of the mean of each pair (issue #26's target: under 5 %).
// BENCH_SUBMISSION=on adds a third phase after the other two, before delivery is measured: SMTP submission
// (support/smtpLoad.mjs) at 64 connections for BENCH_SECONDS after a 2 s warm-up, and a line per mode
// `{"bench":"send-smtp"}` with its accepted emails/s beside the HTTP figure of the same run. Off by default:
// its emails join the backlog, so delivered/s would then not compare with the runs before it. Here (2 cores
// shared with other work) server mode took 127 emails/s over SMTP beside 418/s over HTTP in the same run,
// 56 beside 182 in a more loaded one: a message costs 4 SMTP round trips, a suppression lookup at RCPT, a
// MIME parse and a blob write more than a POST, and its Node client shares the cores where wrk's C does not.
import { loadavg } from "node:os";
import { cpuCounter } from "./support/cpuTime.mjs";
import { postScript, sendingBenchSettings, withMailingTidings } from "./support/mailingTidings.mjs";
import { openLoop } from "./support/openLoop.mjs";
import { freePort, wrk as runWrk } from "./support/servedTidings.mjs";
import { smtpLoad } from "./support/smtpLoad.mjs";

const { seconds, modes, fixedRate, tidings } = sendingBenchSettings({ modes: "embedded,server", rate: 500 });
const metricsRuns = { off: [false], on: [true], both: [false, true, true, false] }[process.env.BENCH_METRICS ?? "off"];
if (!metricsRuns) throw new Error("BENCH_METRICS is off, on or both");
const submission = { off: false, on: true }[process.env.BENCH_SUBMISSION ?? "off"];
if (submission === undefined) throw new Error("BENCH_SUBMISSION is off or on");
const connections = 64;
const wrk = (url, script, duration) => runWrk(url, script, duration, connections);

async function bench(mode, metrics) {
  const split = mode === "server";
  const submissionPort = submission ? await freePort() : undefined;
  const run = { ...tidings, mode, metrics, label: "send", roles: split ? ["projector", "api"] : ["all"], submissionPort };
  return withMailingTidings(run, async ({ sink, baseUrl, headers, startRole, metricsUrls, peakRss }) => {
    const body = JSON.stringify({
      from: "Bench <bench@bench.test>",
      to: ["reader@example.test"],
      subject: "Bench",
      html: "<p>Hello from <b>bench/send</b></p>",
    });
    const script = postScript("send", body, headers);
    const url = `${baseUrl}/emails`;
    const load = loadavg()[0];
    const startedAt = Date.now();
    const warm = await wrk(url, script, 2);
    const measured = await wrk(url, script, seconds);
    const fixed = await openLoop({ url, rate: fixedRate, seconds, headers, body });
    const smtp = submission ? await smtpPhase(submissionPort, headers.Authorization.slice("Bearer ".length)) : null;
    const accepted =
      warm.accepted +
      measured.accepted +
      fixed.requested -
      fixed.non2xx -
      fixed.errors +
      (smtp ? smtp.warm.accepted + smtp.measured.accepted : 0);
    // Server mode: the sagas process's CPU per email it delivers, over the window delivered/s is measured
    // in (first delivery to last), so its start-up is left out. Unlike delivered/s, other load on the
    // machine hardly moves it, so two builds compare on a busy machine.
    const sagas = split ? startRole("sagas") : undefined;
    let sagasCpu;
    if (sagas) {
      await sink.waitForMessages(1, 600_000);
      sagasCpu = cpuCounter({ sagas: (_, pid) => pid === sagas.pid });
    }
    await sink.waitForMessages(accepted, 600_000);
    const sagasCpuMs = sagasCpu?.read().sagas;
    const recorded = metrics ? await countedDeliveries(metricsUrls()) : null;
    const firstAt = sink.received[0].receivedAt.getTime();
    const lastAt = sink.received[accepted - 1].receivedAt.getTime();
    const result = {
      bench: "send",
      mode,
      connections,
      seconds,
      mail_concurrency: Number(tidings.mailConcurrency),
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
      // wrk counts only the answers it read before it stopped, so the sink can hold more than accepted_total;
      // a repeat would show as fewer distinct Message-IDs than messages.
      delivered_distinct_message_ids: new Set(sink.received.map((m) => m.messageId)).size,
      // Embedded: the sagas ran during the load, so this is accept and delivery together. Server: the
      // sagas process started after the load, so this is delivery alone, draining the backlog.
      delivery: split ? "backlog after load" : "during load",
      delivered_per_s: split
        ? Math.round((accepted - 1) / ((lastAt - firstAt) / 1000))
        : Math.round(accepted / ((lastAt - startedAt) / 1000)),
      ...(sagasCpuMs === undefined ? {} : { sagas_cpu_ms_per_email: Number((sagasCpuMs / (accepted - 1)).toFixed(3)) }),
      load_1m_before: Number(load.toFixed(2)),
      ...peakRss(),
      metrics,
      // With metrics on, the deliveries the roles' /metrics counted: the run measured recording.
      ...(metrics ? { metrics_deliveries_counted: recorded } : {}),
    };
    if (!smtp) return { result };
    const { measured: over } = smtp;
    const smtpResult = {
      bench: "send-smtp",
      mode,
      connections,
      seconds,
      accepted_per_s: Math.round(over.accepted / seconds),
      http_accepted_per_s: result.accepted_per_s,
      accept_p50_ms: over.p50Ms,
      accept_p99_ms: over.p99Ms,
      refused: smtp.warm.refused + over.refused,
      ...(over.refusals.length ? { refusals: over.refusals } : {}),
    };
    return { result, smtpResult };
  });
}

/** SMTP submission after the HTTP phases, on the same server: a 2 s warm-up, then BENCH_SECONDS measured. */
async function smtpPhase(port, token) {
  const message = {
    from: "Bench <bench@bench.test>",
    to: "reader@example.test",
    subject: "Bench",
    html: "<p>Hello from <b>bench/send</b> over SMTP</p>",
  };
  const warm = await smtpLoad({ port, token, message, connections, seconds: 2 });
  const measured = await smtpLoad({ port, token, message, connections, seconds });
  return { warm, measured };
}

/** The sum of tidings_deliveries_total over every role's scrape. */
async function countedDeliveries(urls) {
  let total = 0;
  for (const url of urls) {
    const text = await (await fetch(url)).text();
    for (const [, value] of text.matchAll(/^tidings_deliveries_total\{[^}]*\} (\S+)$/gm)) total += Number(value);
  }
  return total;
}

const mean = (values) => values.reduce((a, b) => a + b, 0) / values.length;
const cost = (runs, field) =>
  Number(
    (1 - mean(runs.filter((r) => r.metrics).map((r) => r[field])) / mean(runs.filter((r) => !r.metrics).map((r) => r[field]))).toFixed(3),
  );

for (const mode of modes) {
  const runs = [];
  for (const metrics of metricsRuns) {
    const { result, smtpResult } = await bench(mode, metrics);
    console.log(JSON.stringify(result));
    if (smtpResult) console.log(JSON.stringify(smtpResult));
    runs.push(result);
  }
  if (new Set(metricsRuns).size === 2)
    console.log(
      JSON.stringify({
        bench: "send-metrics-cost",
        mode,
        runs: runs.length,
        // 1 - with / without: a positive share is what metrics took.
        accepted_cost: cost(runs, "accepted_per_s"),
        delivered_cost: cost(runs, "delivered_per_s"),
        fixed_rate_p99_ms_off: mean(runs.filter((r) => !r.metrics).map((r) => r.fixed_rate_p99_ms)),
        fixed_rate_p99_ms_on: mean(runs.filter((r) => r.metrics).map((r) => r.fixed_rate_p99_ms)),
      }),
    );
}
