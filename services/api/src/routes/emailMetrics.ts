import { z } from "zod";
import type { ApiInstance, ApiRoutes } from "../app.js";
import { emailMetrics, metricDimensions } from "../queries/emailMetrics.js";
import { granularities } from "../queries/metricPeriods.js";
import { emailMetrics as metricNames } from "../queries/metricRates.js";
import { requireAuth } from "../plugins/auth.js";
import { ok } from "../replies.js";
import type { ApiServices } from "../services.js";
import { metricsQuerySchema, metricsRequest } from "./emailMetricsQuery.js";

/** The requested metrics of a row: each present when asked for. */
const metricFields = z.object(
  Object.fromEntries(metricNames.map((metric) => [metric, z.number().optional()])) as Record<
    (typeof metricNames)[number],
    z.ZodOptional<z.ZodNumber>
  >,
);

/** A row of `data`: the fields of the requested dimensions, then its metrics. */
const metricsRow = metricFields.extend({
  period: z.string().optional().describe("The period's start, in `timezone` with its offset."),
  domain_id: z.uuid().optional(),
  domain_name: z.string().optional(),
  email_id: z.uuid().optional(),
  broadcast_id: z.uuid().optional(),
  broadcast_name: z.string().optional(),
});

const metricsReply = z.object({
  object: z.literal("metrics"),
  start_date: z.string(),
  end_date: z.string(),
  metrics: z.array(z.enum(metricNames)),
  dimensions: z.array(z.enum(metricDimensions)),
  granularity: z.enum(granularities),
  totals: metricFields,
  data: z.array(metricsRow).optional(),
});

/**
 * `GET /emails/metrics` (docs/wire-compatibility.md §6.22): counts and rates of the team's emails over a range,
 * in total or per period, domain, email or broadcast, from the `email_metrics` read model.
 */
export function emailMetricsRoutes(services: ApiServices): ApiRoutes {
  return (app: ApiInstance) => {
    app.get(
      "/emails/metrics",
      { schema: { tags: ["emails"], summary: "Retrieve email metrics", querystring: metricsQuerySchema, response: { 200: metricsReply } } },
      async (request, reply) => {
        const query = metricsRequest(request.query, services.clock.now().getTime());
        const { totals, data } = await emailMetrics(services.database, requireAuth(request).teamId, query);
        return ok(reply, {
          object: "metrics" as const,
          start_date: new Date(query.from).toISOString(),
          end_date: new Date(query.to).toISOString(),
          metrics: query.metrics,
          dimensions: query.dimensions,
          granularity: query.granularity,
          totals,
          ...(data && { data }),
        });
      },
    );
  };
}
