// A team's sent emails over the last `days`, drawn in SQL and written straight into the read models as the
// projections would leave them, for the benches that read them back (email-metrics, dashboard): projecting
// each email's events would take a bench's whole budget and measure the projector, not the reads.
// Each email is sent from one of the team's domains, 3 in 10 by one of 20 broadcasts (each from one domain,
// sent within two hours of its start); 97 % are delivered, 2 % bounce, 1 % fail; 40 % of those delivered are
// opened, half of those twice, and 10 % clicked, within 48 hours.
import { sql } from "kysely";
import { NO_DIMENSION } from "@tidings/projections";

/** Counters of `email_metrics` the drawn emails move; the others stay 0. */
const counters = ["sent", "delivered", "bounced_permanent", "failed", "opened", "unique_opened", "clicked", "unique_clicked"];
const untouched = ["received", "delivery_delayed", "complained", "bounced_transient", "bounced_undetermined", "suppressed"];

/** A version 4 uuid made from `text`'s md5, so that each draw names its email and broadcast the same in every run. */
const uuidOf = (text) => sql`overlay(overlay(md5(${text}) placing '4' from 13) placing '8' from 17)::uuid`;

/**
 * Draws `emails` emails of the team's `domainIds` into the temporary table `bench_emails` of `db`, which must
 * be one connection (`db.connection()`): id, i (1…emails), domain_id, broadcast (0…19 or NULL), broadcast_id
 * (NO_DIMENSION for none), sent_at, and the draws `outcome`, `engagement` and `delay` the read models follow.
 * The draws are seeded: every run, and both benches, draw the same emails.
 */
export async function drawSentEmails(db, { emails, days, domainIds }) {
  const domains = sql`${domainIds}::uuid[]`;
  const span = (n) => sql.raw(`interval '${n} days'`);
  await sql`SELECT setseed(0.24)`.execute(db);
  await sql`
    CREATE TEMP TABLE bench_emails AS
    WITH drawn AS (
      SELECT i, floor(random() * ${domainIds.length})::int AS domain, CASE WHEN random() < 0.3 THEN floor(random() * 20)::int END AS broadcast,
             random() AS outcome, random() AS engagement, random() AS delay, random() AS moment
      FROM generate_series(1, ${emails}) AS i)
    -- A broadcast has one from address, so one domain. It goes out from its start, within two hours; a
    -- transactional email at any time of the range, up to two days ago so its opens and clicks fall in it.
    SELECT ${uuidOf(sql`'email' || i`)} AS id, i, (${domains})[1 + COALESCE(broadcast % ${domainIds.length}, domain)] AS domain_id, broadcast,
           CASE WHEN broadcast IS NULL THEN ${NO_DIMENSION}::uuid ELSE ${uuidOf(sql`'broadcast' || broadcast`)} END AS broadcast_id,
           CASE
             WHEN broadcast IS NULL THEN now() - ${span(days)} + interval '1 hour' + moment * ${span(days - 2)}
             ELSE now() - ${span(days)} + interval '1 hour' + broadcast * interval '1 day' + moment * interval '2 hours'
           END AS sent_at,
           outcome, engagement, delay
    FROM drawn`.execute(db);
}

/**
 * The `email_metrics` and `email_metrics_by_email` rows of `bench_emails`: every email's events as rows of
 * (email, quarter hour, counters), its send and outcome at its send time, its opens and clicks up to 48 hours
 * later; the by-email table is these summed per email and quarter hour, the main table per quarter hour,
 * domain and broadcast: what the projection's tallies add up to. (`email_metric_emails`, which only the
 * projection reads, stays empty.)
 */
export async function writeEmailMetrics(db, teamId) {
  const quarter = (at) => sql`date_bin('15 minutes', ${at}, timestamptz '2000-01-01')`;
  await sql`
    CREATE TEMP TABLE bench_events AS
    SELECT id, domain_id, broadcast_id, ${quarter(sql`sent_at`)} AS bucket_start,
           1 AS sent, (outcome < 0.97)::int AS delivered, (outcome >= 0.97 AND outcome < 0.99)::int AS bounced_permanent,
           (outcome >= 0.99)::int AS failed, 0 AS opened, 0 AS unique_opened, 0 AS clicked, 0 AS unique_clicked
    FROM bench_emails
    UNION ALL
    SELECT id, domain_id, broadcast_id, ${quarter(sql`${quarter(sql`sent_at`)} + delay * interval '48 hours'`)},
           0, 0, 0, 0, 1 + (engagement < 0.2)::int, 1, (engagement < 0.1)::int, (engagement < 0.1)::int
    FROM bench_emails WHERE outcome < 0.97 AND engagement < 0.4`.execute(db);
  const sums = sql.raw(counters.map((c) => `SUM(${c})`).join(", "));
  const names = sql.raw([...counters, ...untouched].join(", "));
  const zeros = sql.raw(untouched.map(() => "0").join(", "));
  await sql`
    INSERT INTO email_metrics_by_email (team_id, email_id, bucket_start, domain_id, broadcast_id, ${names})
    SELECT ${teamId}::uuid, id, bucket_start, domain_id, broadcast_id, ${sums}, ${zeros}
    FROM bench_events GROUP BY id, bucket_start, domain_id, broadcast_id`.execute(db);
  await sql`
    INSERT INTO email_metrics (team_id, bucket_start, domain_id, broadcast_id, ${names})
    SELECT ${teamId}::uuid, bucket_start, domain_id, broadcast_id, ${sums}, ${zeros}
    FROM bench_events GROUP BY bucket_start, domain_id, broadcast_id`.execute(db);
}

const firstNames = [
  "Ada",
  "Bruno",
  "Chloé",
  "Dmitri",
  "Esther",
  "Farid",
  "Grace",
  "Hiro",
  "Ines",
  "Jonas",
  "Kemi",
  "Lena",
  "Mateo",
  "Nora",
  "Omar",
  "Priya",
];
const lastNames = [
  "Martin",
  "Okafor",
  "Lindqvist",
  "Nakamura",
  "Rossi",
  "Haddad",
  "Schmidt",
  "Dubois",
  "Silva",
  "Kowalski",
  "Ibrahim",
  "Chen",
];
const mailHosts = ["gmail.com", "outlook.com", "example.org", "yahoo.fr", "proton.me", "company.example"];
const subjects = [
  "'Your order #' || (100000 + i) || ' has shipped'",
  "'Receipt for order #' || (100000 + i)",
  "'Reset your password'",
  "'Welcome to Acme, ' || first_name",
  "'Your sign-in code is ' || lpad((i::bigint * 7919 % 1000000)::text, 6, '0')",
];

/**
 * The `emails` read model's rows of `bench_emails`, from the team's domains `{ id, name }`: the status their
 * draws lead to (as emailStatusAfter would leave it after the email's last event), one recipient among
 * `emails` / 5 people (each sent about 5 emails spread over the range), a subject of five transactional kinds
 * or its broadcast's, and a body of some 600 bytes.
 */
export async function writeEmailRows(db, teamId, domains, emails) {
  const list = (values) => sql.raw(`ARRAY[${values.map((v) => `'${v}'`).join(", ")}]`);
  const people = Math.max(1, Math.floor(emails / 5));
  const body =
    "'<p>Hello ' || first_name || ',</p><p>Thank you for choosing Acme. ' || subject || '. You can see everything about it in your " +
    "account, at any time, and reply to this email if anything is not as it should be: a person reads every answer.</p>" +
    '<p>Acme, 12 rue des Lilas, 69001 Lyon</p><p><a href="https://acme.example/account">Your account</a> · ' +
    '<a href="https://acme.example/unsubscribe">Unsubscribe</a></p>\'';
  await sql`
    WITH people AS (
      SELECT e.*, (i::bigint * 7919) % ${people} AS n FROM bench_emails e),
    named AS (
      SELECT p.*, (${list(firstNames)})[1 + n % ${firstNames.length}] AS first_name,
             (${list(lastNames)})[1 + (n / ${firstNames.length}) % ${lastNames.length}] AS last_name,
             (${list(mailHosts)})[1 + n % ${mailHosts.length}] AS host
      FROM people p),
    written AS (
      SELECT n.*, lower(first_name) || '.' || lower(last_name) || '.' || n || '@' || host AS recipient,
             CASE WHEN broadcast IS NULL THEN (ARRAY[${sql.raw(subjects.join(", "))}])[1 + i % ${subjects.length}]
                  ELSE 'Acme news #' || broadcast || ': what is new this month' END AS subject
      FROM named n)
    INSERT INTO emails (id, team_id, from_address, to_addresses, cc, bcc, reply_to, subject, html, text, tags, last_event,
                        scheduled_at, template_id, broadcast_id, domain_id, created_at)
    SELECT w.id, ${teamId}::uuid, 'Acme <' || CASE WHEN broadcast IS NULL THEN 'orders' ELSE 'news' END || '@' || d.name || '>',
           jsonb_build_array(recipient), '[]', '[]', '[]', subject, html, regexp_replace(html, '<[^>]+>', '', 'g'),
           jsonb_build_array(jsonb_build_object('name', 'kind', 'value', CASE WHEN broadcast IS NULL THEN 'transactional' ELSE 'broadcast' END)),
           CASE WHEN outcome >= 0.99 THEN 'failed' WHEN outcome >= 0.97 THEN 'bounced'
                WHEN engagement < 0.1 THEN 'clicked' WHEN engagement < 0.4 THEN 'opened' ELSE 'delivered' END,
           NULL, NULL, NULLIF(broadcast_id, ${NO_DIMENSION}::uuid), domain_id, sent_at - interval '2 seconds'
    FROM (SELECT written.*, ${sql.raw(body)} AS html FROM written) w
    JOIN unnest(${domains.map((d) => d.id)}::uuid[], ${domains.map((d) => d.name)}::text[]) AS d(id, name) ON d.id = w.domain_id`.execute(
    db,
  );
}
