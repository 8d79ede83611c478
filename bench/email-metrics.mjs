// GET /emails/metrics over 1,000,000 emails (issue #24: p99 under 200 ms). A throw-away PostgreSQL database
// gets the email_metrics read model's rows as the projection would leave them for BENCH_EMAILS emails (default
// 1,000,000) of one team over the last 30 days: written straight into its tables by SQL, since projecting a
// million emails' events would take the bench's whole budget and measure the projector, not the query. Each
// email is sent from one of 10 domains, 3 in 10 by one of 20 broadcasts (each from one domain, sent within two
// hours of its start); 97 % are delivered, 2 % bounce, 1 % fail; 40 % are opened, half of those twice, and 10 % clicked,
// within 48 hours. Then, one request at a time through the whole app (auth, rate limit, request log), it
// times BENCH_REQUESTS (default 200) requests of each query after 20 unmeasured ones: the floor, `GET
// /api-keys?limit=1` (a read of one row by the same stack); the totals; daily periods in America/New_York; and
// the breakdown by domain; each over the 30 days.
// Runs the built packages: `npx tsc -b && node bench/email-metrics.mjs`. One JSON line per query.
import { loadavg } from "node:os";
import { sql } from "kysely";
import { buildApp } from "@tidings/api";
import { NO_DIMENSION } from "@tidings/projections";
import { benchKey, withInProcessApi } from "./support/inProcessApi.mjs";
import { withScratchDatabase } from "./support/scratchDatabase.mjs";

const emails = Number(process.env.BENCH_EMAILS ?? 1_000_000);
const requests = Number(process.env.BENCH_REQUESTS ?? 200);
const DAYS = 30;

/**
 * Every email's events as rows of (email, quarter hour, counters): its send and outcome at its send time, its
 * opens and clicks up to 48 hours later. The by-email table is these summed per email and quarter hour; the
 * main table, summed per quarter hour, domain and broadcast: what the projection's tallies add up to.
 */
async function fill(db, teamId, domainIds) {
  const started = performance.now();
  const domains = sql`${domainIds}::uuid[]`;
  await sql`SELECT setseed(0.24)`.execute(db);
  await sql`
    CREATE TEMP TABLE bench_emails AS
    WITH drawn AS (
      SELECT i, floor(random() * 10)::int AS domain, CASE WHEN random() < 0.3 THEN floor(random() * 20)::int END AS broadcast,
             random() AS outcome, random() AS engagement, random() AS delay, random() AS moment
      FROM generate_series(1, ${emails}) AS i)
    -- A broadcast has one from address, so one domain.
    SELECT md5('email' || i)::uuid AS id, (${domains})[1 + COALESCE(broadcast % 10, domain)] AS domain_id, broadcast,
           outcome, engagement, delay, moment
    FROM drawn`.execute(db);
  // A broadcast goes out from its start, within two hours; a transactional email at any time of the 30 days.
  await sql`
    CREATE TEMP TABLE bench_events AS
    WITH timed AS (
      SELECT e.*, CASE WHEN broadcast IS NULL THEN ${NO_DIMENSION}::uuid ELSE md5('broadcast' || broadcast)::uuid END AS broadcast_id,
             date_bin('15 minutes', CASE
               WHEN broadcast IS NULL THEN now() - interval '${sql.raw(String(DAYS))} days' + interval '1 hour' + moment * interval '${sql.raw(String(DAYS - 2))} days'
               ELSE now() - interval '${sql.raw(String(DAYS))} days' + interval '1 hour' + broadcast * interval '1 day' + moment * interval '2 hours'
             END, timestamptz '2000-01-01') AS sent_at
      FROM bench_emails e)
    SELECT id, domain_id, broadcast_id, sent_at AS bucket_start,
           1 AS sent, (outcome < 0.97)::int AS delivered, (outcome >= 0.97 AND outcome < 0.99)::int AS bounced_permanent,
           (outcome >= 0.99)::int AS failed, 0 AS opened, 0 AS unique_opened, 0 AS clicked, 0 AS unique_clicked
    FROM timed
    UNION ALL
    SELECT id, domain_id, broadcast_id, date_bin('15 minutes', sent_at + delay * interval '48 hours', timestamptz '2000-01-01'),
           0, 0, 0, 0, 1 + (engagement < 0.2)::int, 1, (engagement < 0.1)::int, (engagement < 0.1)::int
    FROM timed WHERE outcome < 0.97 AND engagement < 0.4`.execute(db);
  const counters = ["sent", "delivered", "bounced_permanent", "failed", "opened", "unique_opened", "clicked", "unique_clicked"];
  const sums = sql.raw(counters.map((c) => `SUM(${c})`).join(", "));
  const names = sql.raw(counters.join(", "));
  await sql`
    INSERT INTO email_metrics_by_email (team_id, email_id, bucket_start, domain_id, broadcast_id, ${names},
      received, delivery_delayed, complained, bounced_transient, bounced_undetermined, suppressed)
    SELECT ${teamId}::uuid, id, bucket_start, domain_id, broadcast_id, ${sums}, 0, 0, 0, 0, 0, 0
    FROM bench_events GROUP BY id, bucket_start, domain_id, broadcast_id`.execute(db);
  await sql`
    INSERT INTO email_metrics (team_id, bucket_start, domain_id, broadcast_id, ${names},
      received, delivery_delayed, complained, bounced_transient, bounced_undetermined, suppressed)
    SELECT ${teamId}::uuid, bucket_start, domain_id, broadcast_id, ${sums}, 0, 0, 0, 0, 0, 0
    FROM bench_events GROUP BY bucket_start, domain_id, broadcast_id`.execute(db);
  await sql`ANALYZE`.execute(db);
  const count = async (table) => Number((await sql`SELECT count(*)::int AS n FROM ${sql.table(table)}`.execute(db)).rows[0].n);
  return {
    fill_s: Number(((performance.now() - started) / 1000).toFixed(1)),
    email_metrics_rows: await count("email_metrics"),
    email_metrics_by_email_rows: await count("email_metrics_by_email"),
  };
}

/** `requests` sequential GETs after 20 unmeasured ones: median and 99th percentile in ms. */
async function time(url, headers) {
  const once = async () => {
    const started = performance.now();
    const res = await fetch(url, { headers });
    const body = await res.json();
    if (res.status !== 200) throw new Error(`${url} answered ${res.status}: ${JSON.stringify(body)}`);
    return performance.now() - started;
  };
  for (let i = 0; i < 20; i++) await once();
  const took = [];
  for (let i = 0; i < requests; i++) took.push(await once());
  took.sort((a, b) => a - b);
  const at = (q) => Number(took[Math.min(took.length - 1, Math.ceil(q * took.length) - 1)].toFixed(2));
  return { p50_ms: at(0.5), p99_ms: at(0.99) };
}

await withScratchDatabase("metrics", (url) =>
  withInProcessApi(
    { EVENTSTORE_URL: url, TIDINGS_SECRET: "b".repeat(40), LOG_LEVEL: "warn" },
    async ({ logger, runtime, services, stops }) => {
      const app = buildApp({ logger, services, readiness: runtime.readiness });
      await app.listen({ port: 0, host: "127.0.0.1" });
      stops.push(() => app.close());
      const key = await benchKey(services, runtime.store);
      const headers = { Authorization: `Bearer ${key.token}`, "Content-Type": "application/json" };
      const base = `http://127.0.0.1:${app.server.address().port}`;
      const domainIds = [];
      for (let i = 0; i < 10; i++) {
        const res = await fetch(`${base}/domains`, { method: "POST", headers, body: JSON.stringify({ name: `d${i}.bench.test` }) });
        domainIds.push((await res.json()).id);
      }
      const filled = await fill(runtime.database.db, key.teamId, domainIds);

      const range = `start_date=${new Date(Date.now() - DAYS * 86_400_000).toISOString()}`;
      const queries = {
        floor: "/api-keys?limit=1",
        totals: `/emails/metrics?${range}`,
        daily_new_york: `/emails/metrics?${range}&dimensions=period&granularity=daily&timezone=America/New_York`,
        by_domain: `/emails/metrics?${range}&dimensions=domain`,
      };
      const totals = await (await fetch(`${base}${queries.totals}&metrics=sent`, { headers })).json();
      if (totals.totals.sent !== emails) throw new Error(`the range holds ${totals.totals.sent} emails, not ${emails}`);
      for (const [query, path] of Object.entries(queries)) {
        const load = loadavg()[0];
        const timed = await time(`${base}${path}`, { Authorization: headers.Authorization });
        console.log(
          JSON.stringify({ bench: "email-metrics", query, emails, requests, ...timed, ...filled, load_1m_before: Number(load.toFixed(2)) }),
        );
      }
    },
  ),
);
