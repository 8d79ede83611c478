// A broadcast, end to end, in server mode: `tidings serve` child processes per role (api, projector, sagas)
// on a scratch PostgreSQL database and NATS, relaying to an SMTP sink (smtp-server on loopback) held by
// this process. BENCH_CONTACTS (default 100,000) generated contacts are imported into one segment through
// `POST /contacts/imports`; the sagas process is then restarted, so its peak RSS is the broadcast's alone
// (the import's, in the process that ran it, is printed apart),
// and one broadcast is sent to the segment. Prints the time from the send to the last message at the
// sink, emails/s over that time, when the fan-out had handed the last recipient to delivery (`sent_at`),
// each process's peak RSS (VmHWM, read once at the end: no sampler running during the measurement), and
// how long a transactional email sent once a fifth of the broadcast was delivered took to reach the sink
// (and, of that, how long the api took to accept it and how long until the forwarder had it on the bus),
// and the CPU milliseconds per email each part spent from the send to the last message (each role, the
// scratch database's PostgreSQL backends, nats-server, and this process as the sink; nats-server is
// shared, so other work on the machine counts there).
// Runs the built packages: `npx tsc -b && node bench/broadcast.mjs`. BENCH_MAIL_CONCURRENCY (default
// MAIL_CONCURRENCY's own) SMTP connections; BENCH_RATE (default 5000) the team's broadcast emails/s (BROADCAST_EMAILS_PER_SECOND);
// BENCH_IN_FLIGHT (default 1000) BROADCAST_EMAILS_IN_FLIGHT. BENCH_CPU_PROF=<dir> writes a CPU profile
// of each role there (node --cpu-prof; the sagas one from its restart, so the broadcast's alone). Targets (issue #25): ≥ 1,500
// emails/s end to end and a third of bench/floors' mail rate, < 400 MB RSS per process, the transactional email < 1 s.
import { loadavg } from "node:os";
import { setTimeout as sleep } from "node:timers/promises";
import { Resend } from "resend";
import pg from "pg";
import { connect } from "nats";
import { createLogger, loadConfig, randomBase62 } from "@tidings/core";
import { BOOTSTRAP_TEAM_NAME } from "@tidings/api";
import { serve } from "@tidings/cli";
import { startSmtpSink } from "@tidings/testkit";
import { setTeamRateLimit } from "../services/cli/dist/commands/teams.js";
import { cpuCounter, natsServer, postgresBackend } from "./support/cpuTime.mjs";
import { withScratchDatabase } from "./support/scratchDatabase.mjs";
import { freePort, scratchNatsPrefix, startRole, waitUntilReady } from "./support/servedTidings.mjs";

const contacts = Number(process.env.BENCH_CONTACTS ?? 100_000);
const mailConcurrency = process.env.BENCH_MAIL_CONCURRENCY ?? String(loadConfig({}).MAIL_CONCURRENCY);
const rate = process.env.BENCH_RATE ?? "5000";
const inFlight = process.env.BENCH_IN_FLIGHT ?? "1000";
const natsUrl = process.env.NATS_URL ?? "nats://127.0.0.1:4222";
const cpuProfileDir = process.env.BENCH_CPU_PROF;

const ok = async (call) => {
  const { data, error } = await call;
  if (error) throw new Error(`${error.name}: ${error.message}`);
  return data;
};

const { prefix, drop: dropNatsStreams } = scratchNatsPrefix(natsUrl);

/** When JetStream stored the forwarder's publish of a stream's EmailQueued: the last one on the subject of emails in no lane. */
async function publishedAt(streamId) {
  const nc = await connect({ servers: natsUrl });
  try {
    const jsm = await nc.jetstreamManager();
    const stored = await jsm.streams.getMessage(`${prefix}_EVENTS`, { last_by_subj: `${prefix}.events.email.EmailQueued` });
    if (stored.json().streamId !== streamId) throw new Error(`the last transactional EmailQueued on the bus is not ${streamId}'s`);
    return stored.time.getTime();
  } finally {
    await nc.close();
  }
}
const sink = await startSmtpSink();
try {
  await withScratchDatabase("broadcast", async (url) => {
    const token = `re_${randomBase62(40)}`;
    const port = await freePort();
    const env = {
      EVENTSTORE_URL: url,
      TIDINGS_SECRET: "b".repeat(40),
      NATS_URL: natsUrl,
      NATS_PREFIX: prefix,
      PORT: String(port),
      LOG_LEVEL: "warn",
      TIDINGS_BOOTSTRAP_TOKEN: token,
      TIDINGS_ALLOW_UNVERIFIED_FROM: "true",
      MAIL_TRANSPORT: "smtp",
      SMTP_URL: sink.url,
      MAIL_CONCURRENCY: mailConcurrency,
      BROADCAST_EMAILS_PER_SECOND: rate,
      BROADCAST_EMAILS_IN_FLIGHT: inFlight,
    };
    const config = loadConfig(env);
    const first = await serve(config, createLogger("warn"), "all");
    await setTeamRateLimit(first.runtime.store, BOOTSTRAP_TEAM_NAME, 10_000_000);
    await first.stop();

    const roles = [startRole("projector", env, { cpuProfileDir }), startRole("api", env, { cpuProfileDir })];
    let sagas = startRole("sagas", env);
    const db = new pg.Client({ connectionString: url });
    await db.connect();
    try {
      const baseUrl = `http://127.0.0.1:${port}`;
      await waitUntilReady(baseUrl);
      const resend = new Resend(token, { baseUrl });
      const segmentId = (await ok(resend.segments.create({ name: "Everyone" }))).id;
      let csv = "email,first_name\n";
      for (let i = 0; i < contacts; i++) csv += `reader${i}@example.test,Reader${i}\n`;
      const importStarted = Date.now();
      const imported = await ok(
        resend.contacts.imports.create({
          file: new Blob([csv]),
          columnMap: { email: "email", firstName: "first_name" },
          segments: [{ id: segmentId }],
        }),
      );
      const members = async () =>
        Number((await db.query("SELECT count(*) AS n FROM contact_segments WHERE segment_id = $1", [segmentId])).rows[0].n);
      while ((await ok(resend.contacts.imports.get(imported.id))).status !== "completed" || (await members()) < contacts) await sleep(500);
      const importSeconds = (Date.now() - importStarted) / 1000;
      // The import's own peak, in the sagas process that ran it: the restart below hides it from the broadcast's.
      const sagasImportPeakRssMb = sagas.peakRssMb();
      await sagas.stop();
      sagas = startRole("sagas", env, { cpuProfileDir });
      await sleep(2_000);

      const load = loadavg()[0];
      const processes = Object.fromEntries([...roles, sagas].map((r) => [r.role, (_, pid) => pid === r.pid]));
      const cpu = cpuCounter({
        ...processes,
        postgres: postgresBackend(new URL(url).pathname.slice(1)),
        nats: natsServer,
        sink: (_, pid) => pid === process.pid,
      });
      const started = Date.now();
      const { id } = await ok(
        resend.broadcasts.create({
          segmentId,
          from: "Bench <news@bench.test>",
          subject: "Hello {{{FIRST_NAME|there}}}",
          html: '<p>Hi {{{contact.first_name}}}, <a href="{{{SERVICE_UNSUBSCRIBE_URL}}}">unsubscribe</a></p>',
          send: true,
        }),
      );
      // Priority: a transactional email sent once a fifth of the broadcast is delivered, timed to the sink.
      await sink.waitForMessages(Math.ceil(contacts / 5), 3_600_000);
      const transactionalSentAt = Date.now();
      const transactional = await ok(
        resend.emails.send({ from: "Bench <receipts@bench.test>", to: "buyer@example.test", subject: "Your receipt", text: "Thanks" }),
      );
      const transactionalAcceptedAt = Date.now();
      const transactionalAt = (await sink.waitFor((r) => r.some((m) => m.messageId?.startsWith(`<${transactional.id}@`)), 3_600_000))
        .find((m) => m.messageId?.startsWith(`<${transactional.id}@`))
        .receivedAt.getTime();
      const transactionalPublishedAt = await publishedAt(`email-${transactional.id}`);
      await sink.waitForMessages(contacts + 1, 3_600_000);
      const cpuMs = cpu.read();
      const lastAt = Math.max(...sink.received.map((m) => m.receivedAt.getTime()));
      const seconds = (lastAt - started) / 1000;
      let broadcast = await ok(resend.broadcasts.get(id));
      while (broadcast.status !== "sent") {
        await sleep(200);
        broadcast = await ok(resend.broadcasts.get(id));
      }
      const sentAt = new Date(broadcast.sent_at.replace(" ", "T").replace("+00", "Z")).getTime();
      const rss = Object.fromEntries([...roles, sagas].map((r) => [`${r.role}_peak_rss_mb`, r.peakRssMb()]));
      console.log(
        JSON.stringify({
          bench: "broadcast",
          mode: "server",
          contacts,
          mail_concurrency: Number(mailConcurrency),
          team_rate_per_s: Number(rate),
          in_flight: Number(inFlight),
          import_s: Number(importSeconds.toFixed(1)),
          fan_out_s: Number(((sentAt - started) / 1000).toFixed(1)),
          last_delivery_s: Number(seconds.toFixed(1)),
          emails_per_s: Math.round(contacts / seconds),
          transactional_during_broadcast_s: Number(((transactionalAt - transactionalSentAt) / 1000).toFixed(2)),
          transactional_accepted_s: Number(((transactionalAcceptedAt - transactionalSentAt) / 1000).toFixed(2)),
          transactional_on_bus_s: Number(((transactionalPublishedAt - transactionalSentAt) / 1000).toFixed(2)),
          delivered: sink.received.length - 1,
          distinct_message_ids: new Set(sink.received.map((m) => m.messageId)).size - 1,
          cpu_ms_per_email: Number((Object.values(cpuMs).reduce((a, b) => a + b, 0) / contacts).toFixed(3)),
          ...Object.fromEntries(
            Object.entries(cpuMs).map(([name, ms]) => [`${name}_cpu_ms_per_email`, Number((ms / contacts).toFixed(3))]),
          ),
          ...rss,
          sagas_import_peak_rss_mb: sagasImportPeakRssMb,
          load_1m_before: Number(load.toFixed(2)),
          load_1m_after: Number(loadavg()[0].toFixed(2)),
        }),
      );
    } finally {
      await db.end();
      await sagas.stop();
      for (const role of roles.reverse()) await role.stop();
    }
  });
} finally {
  await sink.close();
  await dropNatsStreams();
}
