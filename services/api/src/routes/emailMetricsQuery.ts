import { z } from "zod";
import { TidingsError } from "@tidings/core";
import { metricDimensions, type MetricsRequest } from "../queries/emailMetrics.js";
import { granularities, isTimezone, periodsOf, zonedInstant } from "../queries/metricPeriods.js";
import { emailMetrics } from "../queries/metricRates.js";

const MAX_IDS = 100;
const MAX_PERIODS = 10_000;
const DEFAULT_SPAN_MS = 6 * 24 * 3_600_000;

/**
 * A list parameter as the contract takes it: comma-separated, repeated, or both (`metrics=sent,opened&metrics=clicked`),
 * each item one of `allowed`, duplicates dropped.
 */
function listOf<T extends string>(name: string, allowed: (item: string) => item is T, wanted: string) {
  return z
    .union([z.string(), z.array(z.string())])
    .optional()
    .describe(`Comma-separated, repeated, or both: ${wanted}.`)
    .transform((value, ctx) => {
      const items = [value ?? []].flat().flatMap((text) =>
        text
          .split(",")
          .map((item) => item.trim())
          .filter(Boolean),
      );
      const wrong = items.find((item) => !allowed(item));
      if (wrong !== undefined) ctx.addIssue({ code: "custom", message: `\`${name}\` must be ${wanted}; got \`${wrong.slice(0, 64)}\`.` });
      return [...new Set(items)] as T[];
    });
}

const among =
  <T extends string>(values: readonly T[]) =>
  (item: string): item is T =>
    (values as readonly string[]).includes(item);
const uuid = (item: string): item is string => z.uuid().safeParse(item).success;
const ids = (name: string) =>
  listOf(name, uuid, `up to ${MAX_IDS} UUIDs`).refine(
    (list) => list.length <= MAX_IDS,
    `\`${name}\` must contain at most ${MAX_IDS} items.`,
  );

export const metricsQuerySchema = z.object({
  start_date: z.string().optional().describe("ISO 8601 date or datetime; defaults to 6 days before `end_date`."),
  end_date: z.string().optional().describe("ISO 8601 date (the whole day) or datetime; defaults to now, and a later one is now."),
  timezone: z.string().optional().describe("IANA timezone of the periods and of dates without an offset; defaults to `UTC`."),
  granularity: z.enum(granularities).optional().describe("The size of a period; defaults to `daily`."),
  metrics: listOf("metrics", among(emailMetrics), `among ${emailMetrics.join(", ")}`),
  dimensions: listOf("dimensions", among(metricDimensions), `among ${metricDimensions.join(", ")}`),
  domain_id: ids("domain_id"),
  email_id: ids("email_id"),
  broadcast_id: ids("broadcast_id"),
});
export type MetricsQuery = z.infer<typeof metricsQuerySchema>;

const invalid = (message: string) => new TidingsError("validation_error", message);

/**
 * A date of the query as an instant: a date is local midnight in `tz` (the next one for an end, so the day is
 * included), a datetime without an offset is local time in `tz`. Undefined when it is not ISO 8601.
 */
export function parseQueryDate(text: string, tz: string, end: boolean): number | undefined {
  const match = /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2})(?::(\d{2})(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})?)?$/i.exec(text);
  if (!match) return undefined;
  const [year, month, day, hour, minute, second] = match.slice(1, 7).map((part) => (part === undefined ? 0 : Number(part))) as number[];
  // Date.UTC reads years 0 to 99 as 1900 to 1999; no email is that old.
  if (year! < 1000) return undefined;
  const calendar = new Date(Date.UTC(year!, month! - 1, day!));
  if (calendar.getUTCMonth() !== month! - 1 || calendar.getUTCDate() !== day! || hour! > 23 || minute! > 59 || second! > 59)
    return undefined;
  if (match[4] === undefined) return zonedInstant(tz, year!, month!, day! + (end ? 1 : 0));
  if (match[8] !== undefined) return Date.parse(text);
  const fraction = match[7] === undefined ? 0 : Math.floor(Number(match[7]) * 1000);
  return zonedInstant(tz, year!, month!, day!, hour!, minute!) + second! * 1000 + fraction;
}

/** The query as the read model is asked it, or the contract's 422 naming what is wrong. `now` clamps the end. */
export function metricsRequest(query: MetricsQuery, now: number): MetricsRequest {
  const timezone = query.timezone ?? "UTC";
  if (!isTimezone(timezone)) throw invalid("Invalid `timezone`: use an IANA timezone such as `America/New_York`.");
  const date = (name: "start_date" | "end_date", end: boolean) => {
    const text = query[name];
    if (text === undefined) return undefined;
    const at = parseQueryDate(text, timezone, end);
    if (at === undefined) throw invalid(`Invalid \`${name}\`: use an ISO 8601 date or datetime.`);
    return at;
  };
  const to = Math.min(date("end_date", true) ?? now, now);
  const from = date("start_date", false) ?? to - DEFAULT_SPAN_MS;
  // Compared with the end as written: an end date's day is included, but a start on the day after it is still after it.
  if (from > Math.min(date("end_date", false) ?? now, now))
    throw invalid("`start_date` must be on or before `end_date` (and not in the future).");

  const dimensions = query.dimensions;
  const emailIds = query.email_id;
  const broadcastIds = query.broadcast_id;
  if (dimensions.includes("email") && dimensions.includes("broadcast"))
    throw invalid("`dimensions` cannot hold both `email` and `broadcast`.");
  if (emailIds.length > 0 && (dimensions.includes("broadcast") || broadcastIds.length > 0))
    throw invalid("`email_id` cannot be combined with the `broadcast` dimension or `broadcast_id`.");
  if (broadcastIds.length > 0 && dimensions.includes("email"))
    throw invalid("`broadcast_id` cannot be combined with the `email` dimension or `email_id`.");

  const granularity = query.granularity ?? "daily";
  const periods = dimensions.includes("period") ? periodsOf(from, to, granularity, timezone, MAX_PERIODS) : undefined;
  if (dimensions.includes("period") && !periods)
    throw invalid(
      `The date range holds more than ${MAX_PERIODS} \`${granularity}\` periods: shorten it or choose a larger \`granularity\`.`,
    );
  return {
    from,
    to,
    timezone,
    granularity,
    metrics: query.metrics.length > 0 ? query.metrics : [...emailMetrics],
    dimensions,
    domainIds: query.domain_id,
    emailIds,
    broadcastIds,
    ...(periods && { periods }),
  };
}
