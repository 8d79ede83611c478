import { sql, type RawBuilder } from "kysely";
import type { Database } from "@tidings/postgres";
import { emailMetricCounters, NO_DIMENSION, readModels, type EmailMetricCounter } from "@tidings/projections";
import { localIso, type Granularity } from "./metricPeriods.js";
import { metricValues, type Counts, type EmailMetric } from "./metricRates.js";

export const metricDimensions = ["period", "domain", "email", "broadcast"] as const;
export type MetricDimension = (typeof metricDimensions)[number];

/** A validated `GET /emails/metrics` (routes/emailMetrics.ts): a range [from, to) in ms, and what to show of it. */
export interface MetricsRequest {
  from: number;
  to: number;
  timezone: string;
  granularity: Granularity;
  metrics: EmailMetric[];
  dimensions: MetricDimension[];
  domainIds: string[];
  emailIds: string[];
  broadcastIds: string[];
  /** The starts of the range's periods, in order, when `period` is a dimension. */
  periods?: number[];
}

export interface MetricsRow extends Partial<Record<EmailMetric, number>> {
  period?: string;
  domain_id?: string;
  domain_name?: string;
  email_id?: string;
  broadcast_id?: string;
  broadcast_name?: string;
}

interface Grouped {
  /** The start of the period, in ms. */
  period?: number;
  domain_id?: string;
  email_id?: string;
  broadcast_id?: string;
  counts: Counts;
}

const zeros = (): Counts => Object.fromEntries(emailMetricCounters.map((c) => [c, 0])) as Counts;

/**
 * Sums the `email_metrics` read model (or, for the `email` dimension and filter, `email_metrics_by_email`)
 * per requested dimension in SQL, quarter hours per period included. Totals count every email of the
 * filters; a `domain` or `broadcast` row needs one (received mail has no sending domain, most emails no
 * broadcast), so `data` leaves such emails out.
 */
export async function emailMetrics(database: Database, teamId: string, request: MetricsRequest) {
  const has = (d: MetricDimension) => request.dimensions.includes(d);
  const totals = zeros();
  const rows = new Map<number, Grouped>();
  // Alone, `period` shows every period of the range, those with no email too: a chart's x axis.
  if (request.dimensions.length === 1) for (const period of request.periods ?? []) rows.set(period, { period, counts: zeros() });
  const data: Grouped[] = [];
  for (const group of await groupedCounts(database, teamId, request)) {
    for (const c of emailMetricCounters) totals[c] += group.counts[c];
    if ((has("domain") && group.domain_id === NO_DIMENSION) || (has("broadcast") && group.broadcast_id === NO_DIMENSION)) continue;
    if (request.dimensions.length === 1 && group.period !== undefined) rows.get(group.period)!.counts = group.counts;
    else data.push(group);
  }
  data.push(...rows.values());
  const names = await dimensionNames(database, teamId, data);
  // In time order, then by domain name, email id and broadcast name.
  const label = (row: MetricsRow) => [row.domain_name, row.email_id, row.broadcast_name].join("|");
  return {
    totals: metricValues(totals, request.metrics),
    ...(request.dimensions.length > 0 && {
      data: data
        .map((row) => ({ at: row.period ?? 0, wire: wireRow(row, request, names) }))
        .sort((a, b) => a.at - b.at || label(a.wire).localeCompare(label(b.wire)))
        .map((row) => row.wire),
    }),
  };
}

async function groupedCounts(database: Database, teamId: string, request: MetricsRequest): Promise<Grouped[]> {
  const has = (d: MetricDimension) => request.dimensions.includes(d);
  const byEmail = has("email") || request.emailIds.length > 0;
  const periods = request.periods ?? [];
  // width_bucket finds each quarter hour's period among the range's starts by binary search, in SQL.
  const period = sql`width_bucket(m.bucket_start, ${periods.map((p) => new Date(p).toISOString())}::timestamptz[])`;
  const grouping = [
    ...(has("period") ? [sql`${period} AS period`] : []),
    ...(["domain_id", "email_id", "broadcast_id"] as const)
      .filter((c) => has(c.replace("_id", "") as MetricDimension))
      .map((c) => sql.ref(`m.${c}`)),
  ];
  const filters: RawBuilder<unknown>[] = [
    sql`m.team_id = ${teamId}`,
    sql`m.bucket_start >= ${new Date(request.from).toISOString()}::timestamptz`,
    sql`m.bucket_start < ${new Date(request.to).toISOString()}::timestamptz`,
  ];
  if (request.domainIds.length > 0) filters.push(sql`m.domain_id = ANY(${request.domainIds}::uuid[])`);
  if (request.emailIds.length > 0) filters.push(sql`m.email_id = ANY(${request.emailIds}::uuid[])`);
  if (request.broadcastIds.length > 0) filters.push(sql`m.broadcast_id = ANY(${request.broadcastIds}::uuid[])`);
  const sums = emailMetricCounters.map((c) => sql`SUM(${sql.ref(`m.${c}`)})::bigint AS ${sql.ref(c)}`);
  const { rows } = await sql<Record<string, unknown>>`
    SELECT ${sql.join([...grouping, ...sums])}
    FROM ${sql.table(byEmail ? "email_metrics_by_email" : "email_metrics")} AS m
    WHERE ${sql.join(filters, sql` AND `)}
    ${grouping.length > 0 ? sql`GROUP BY ${sql.join(grouping.map((_, n) => sql.raw(String(n + 1))))}` : sql``}`.execute(
    readModels(database),
  );
  return rows
    .filter((row) => grouping.length > 0 || row.sent !== null)
    .map((row) => ({
      period: row.period === undefined ? undefined : periods[Number(row.period) - 1]!,
      domain_id: row.domain_id as string | undefined,
      email_id: row.email_id as string | undefined,
      broadcast_id: row.broadcast_id as string | undefined,
      counts: Object.fromEntries(emailMetricCounters.map((c: EmailMetricCounter) => [c, Number(row[c])])) as Counts,
    }));
}

interface Names {
  domains: Map<string, string>;
  broadcasts: Map<string, string>;
}

/** The names of the domains and broadcasts of the rows; a domain or broadcast deleted since has an empty one. */
async function dimensionNames(database: Database, teamId: string, rows: Grouped[]): Promise<Names> {
  const ids = (key: "domain_id" | "broadcast_id") => [...new Set(rows.map((r) => r[key]).filter((id): id is string => id !== undefined))];
  const domainIds = ids("domain_id");
  const broadcastIds = ids("broadcast_id");
  const rm = readModels(database);
  const [domains, broadcasts] = await Promise.all([
    domainIds.length === 0
      ? []
      : rm.selectFrom("domains").where("team_id", "=", teamId).where("id", "in", domainIds).select(["id", "name"]).execute(),
    broadcastIds.length === 0
      ? []
      : rm.selectFrom("broadcasts").where("team_id", "=", teamId).where("id", "in", broadcastIds).select(["id", "name"]).execute(),
  ]);
  return {
    domains: new Map(domains.map((d) => [d.id, d.name])),
    broadcasts: new Map(broadcasts.map((b) => [b.id, b.name ?? ""])),
  };
}

function wireRow(row: Grouped, request: MetricsRequest, names: Names): MetricsRow {
  const has = (d: MetricDimension) => request.dimensions.includes(d);
  return {
    ...(has("period") && { period: localIso(row.period!, request.timezone) }),
    ...(has("domain") && { domain_id: row.domain_id!, domain_name: names.domains.get(row.domain_id!) ?? "" }),
    ...(has("email") && { email_id: row.email_id! }),
    ...(has("broadcast") && { broadcast_id: row.broadcast_id!, broadcast_name: names.broadcasts.get(row.broadcast_id!) ?? "" }),
    ...metricValues(row.counts, request.metrics),
  };
}
