// GET /emails/metrics over 1,000,000 emails (issue #24: p99 under 200 ms). A throw-away PostgreSQL database
// gets the email_metrics read model's rows as the projection would leave them for BENCH_EMAILS emails (default
// 1,000,000) of one team over the last 30 days: written straight into its tables by SQL, since projecting a
// million emails' events would take the bench's whole budget and measure the projector, not the query. The
// emails are those of support/sentEmails.mjs, from 10 domains. Then, one request at a time through the whole
// app (auth, rate limit, request log), it times BENCH_REQUESTS (default 200) requests of each query after 20
// unmeasured ones: the floor, `GET /api-keys?limit=1` (a read of one row by the same stack); the totals; daily
// periods in America/New_York; and the breakdown by domain; each over the 30 days.
// Runs the built packages: `npx tsc -b && node bench/email-metrics.mjs`. One JSON line per query.
import { loadavg } from "node:os";
import { sql } from "kysely";
import { withServedTeam } from "./support/inProcessApi.mjs";
import { drawSentEmails, writeEmailMetrics } from "./support/sentEmails.mjs";

const emails = Number(process.env.BENCH_EMAILS ?? 1_000_000);
const requests = Number(process.env.BENCH_REQUESTS ?? 200);
const DAYS = 30;

/** The read model's rows of the emails, written on one connection: the drawing's temporary tables are its own. */
async function fill(db, teamId, domainIds) {
  const started = performance.now();
  await db.connection().execute(async (connection) => {
    await drawSentEmails(connection, { emails, days: DAYS, domainIds });
    await writeEmailMetrics(connection, teamId);
  });
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

const domainNames = Array.from({ length: 10 }, (_, i) => `d${i}.bench.test`);
await withServedTeam("metrics", domainNames, async ({ base, key, headers, domains, db }) => {
  const filled = await fill(
    db,
    key.teamId,
    domains.map((d) => d.id),
  );

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
      JSON.stringify({
        bench: "email-metrics",
        query,
        emails,
        requests,
        ...timed,
        ...filled,
        load_1m_before: Number(load.toFixed(2)),
        peak_rss_mb: Math.round(process.resourceUsage().maxRSS / 1024),
      }),
    );
  }
});
