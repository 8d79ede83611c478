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
// BENCH_MAIL_CONCURRENCY (default MAIL_CONCURRENCY's own, as bench/send); BENCH_LOG_LEVEL (default warn);
// BENCH_CPU_PROF=<dir> writes a CPU profile of each Tidings process there (node --cpu-prof).
import { loadavg } from "node:os";
import { simpleParser } from "mailparser";
import pg from "pg";
import { postScript, sendingBenchSettings, withMailingTidings } from "./support/mailingTidings.mjs";
import { openLoop } from "./support/openLoop.mjs";
import { wrk } from "./support/servedTidings.mjs";

const { seconds, modes, fixedRate, tidings } = sendingBenchSettings({ modes: "server", rate: 200 });
const connections = 64;

/** The events, the template and the automation the load runs against, through the API. */
async function define(baseUrl, headers) {
  const call = async (method, path, body) => {
    const res = await fetch(`${baseUrl}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
    return res.json();
  };
  await call("POST", "/events", { name: "bench.throughput" });
  await call("POST", "/events", { name: "bench.signed_up", schema: { t: "string" } });
  const template = await call("POST", "/templates", {
    name: "Bench",
    subject: "Bench {{{T}}}",
    html: "<p>Welcome</p>",
    from: "Bench <bench@bench.test>",
    variables: [{ key: "T", type: "string" }],
  });
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

/**
 * Server mode: where the time between an event and its email goes, from the event store's own append
 * times (p50 ms): api append to run started (forwarder, bus, runner), run started to email queued (the
 * send step), email queued to delivered (forwarder, bus, delivery saga, SMTP).
 */
async function stages(eventStoreUrl) {
  const client = new pg.Client({ connectionString: eventStoreUrl });
  await client.connect();
  try {
    const { rows } = await client.query(`
      WITH received AS (SELECT data->>'receivedEventId' AS id, created_at FROM eventstore.events WHERE type = 'CustomEventReceived' AND data->>'name' = 'bench.signed_up'),
      started AS (SELECT data->>'runId' AS run_id, data->'trigger'->>'receivedEventId' AS id, created_at FROM eventstore.events WHERE type = 'AutomationRunStarted'),
      sent AS (SELECT data->>'runId' AS run_id, data->'output'->>'email_id' AS email_id FROM eventstore.events WHERE type = 'AutomationRunStepCompleted' AND data->>'key' = 'welcome'),
      queued AS (SELECT stream_id, created_at FROM eventstore.events WHERE type = 'EmailQueued'),
      delivered AS (SELECT stream_id, created_at FROM eventstore.events WHERE type = 'EmailDelivered')
      SELECT
        percentile_cont(0.5) WITHIN GROUP (ORDER BY extract(epoch FROM started.created_at - received.created_at) * 1000) AS to_run,
        percentile_cont(0.5) WITHIN GROUP (ORDER BY extract(epoch FROM queued.created_at - started.created_at) * 1000) AS to_queued,
        percentile_cont(0.5) WITHIN GROUP (ORDER BY extract(epoch FROM delivered.created_at - queued.created_at) * 1000) AS to_delivered
      FROM received JOIN started USING (id) JOIN sent USING (run_id)
      JOIN queued ON queued.stream_id = 'email-' || sent.email_id JOIN delivered ON delivered.stream_id = queued.stream_id`);
    const ms = (v) => (v === null ? null : Math.round(Number(v)));
    return {
      event_to_run_p50_ms: ms(rows[0].to_run),
      run_to_queued_p50_ms: ms(rows[0].to_queued),
      queued_to_delivered_p50_ms: ms(rows[0].to_delivered),
    };
  } finally {
    await client.end();
  }
}

const quantile = (sorted, q) => Number(sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)].toFixed(1));

async function bench(mode) {
  const roles = mode === "server" ? ["projector", "api", "sagas"] : ["all"];
  const run = { ...tidings, mode, label: "events", roles };
  return withMailingTidings(run, async ({ sink, baseUrl, headers, settings, peakRss }) => {
    await define(baseUrl, headers);
    const url = `${baseUrl}/events/send`;

    const script = postScript(
      "events",
      JSON.stringify({ event: "bench.throughput", email: "reader@example.test", payload: { plan: "pro" } }),
      headers,
    );
    const load = loadavg()[0];
    const warm = await wrk(url, script, 2, connections);
    const measured = await wrk(url, script, seconds, connections);
    // The latency phase starts once the runner has drained the throughput phase's events: a marker
    // event sent after them comes out as an email only then (the runner takes events roughly in order).
    const marker = await fetch(url, {
      method: "POST",
      headers,
      body: JSON.stringify({ event: "bench.signed_up", email: "marker@example.test", payload: { t: "0" } }),
    });
    if (!marker.ok) throw new Error(`marker event: ${marker.status}`);
    const drainStarted = Date.now();
    await sink.waitForMessages(1, 600_000);
    const drainMs = Date.now() - drainStarted;
    sink.reset();

    const loadFixed = loadavg()[0];
    const fixed = await openLoop({
      url,
      rate: fixedRate,
      seconds,
      headers,
      body: (i, dueAt) =>
        JSON.stringify({ event: "bench.signed_up", email: `b${i % 500}@example.test`, payload: { t: String(Math.round(dueAt)) } }),
    });
    const expected = fixed.requested - fixed.non2xx - fixed.errors;
    await sink.waitForMessages(expected, 120_000);
    const latencies = (
      await Promise.all(
        sink.received.map(async (m) => ({ at: m.receivedAt.getTime(), subject: (await simpleParser(m.raw)).subject ?? "" })),
      )
    )
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
      // By phase, to tell which one was refused.
      non_2xx_by_phase: { warm: warm.non2xx, throughput: measured.non2xx, fixed_rate: fixed.non2xx, fixed_rate_errors: fixed.errors },
      non_2xx_samples: [...warm.non2xxSamples, ...measured.non2xxSamples],
      mail_concurrency: Number(tidings.mailConcurrency),
      fixed_rate: fixedRate,
      fixed_rate_achieved: fixed.achievedRps,
      fixed_rate_accept_p99_ms: fixed.p99Ms,
      emails: sink.received.length,
      event_to_email_p50_ms: quantile(latencies, 0.5),
      event_to_email_p99_ms: quantile(latencies, 0.99),
      event_to_email_max_ms: quantile(latencies, 1),
      ...(settings.EVENTSTORE_URL ? await stages(settings.EVENTSTORE_URL) : {}),
      // How long the runner took to get through the throughput phase's events after it ended.
      runner_backlog_drain_ms: drainMs,
      load_1m_before: Number(load.toFixed(2)),
      load_1m_before_fixed_rate: Number(loadFixed.toFixed(2)),
      ...peakRss(),
    };
  });
}

for (const mode of modes) console.log(JSON.stringify(await bench(mode)));
