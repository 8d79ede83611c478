import { z } from "zod";
import { TidingsError } from "@tidings/core";
import { likeLiteral, type Database } from "@tidings/postgres";
import type { ApiRoutes } from "../app.js";
import { listPage, listQuerySchema, listSchema } from "../pagination.js";
import { requireAuth } from "../plugins/auth.js";
import { wireTimestamp, wireTimestampText } from "../wireTimestamp.js";
import type { ApiTables } from "../apiMigrations.js";

const logItem = z.object({
  id: z.string(),
  created_at: wireTimestampText(),
  endpoint: z.string(),
  method: z.string(),
  response_status: z.number().int(),
  user_agent: z.string().nullable(),
});

const log = logItem.extend({
  object: z.literal("log"),
  request_body: z.unknown(),
  response_body: z.unknown(),
});

const methods = ["GET", "POST", "PUT", "PATCH", "DELETE"] as const;

/** GET /logs's own filters (Tidings only, docs/wire-compatibility.md §6.17). */
const logFilters = {
  method: z
    .string()
    .transform((method) => method.toUpperCase())
    .pipe(z.enum(methods, { error: `\`method\` must be one of ${methods.join(", ")}.` }))
    .optional()
    .describe("Only the requests with this HTTP method."),
  path: z.string().min(1).max(200).optional().describe("Only the requests whose path starts with this, such as `/emails`."),
  status: z.coerce
    .number({ error: "`status` must be an HTTP status such as 422, or a class such as 4 for 4xx." })
    .int({ error: "`status` must be an HTTP status such as 422, or a class such as 4 for 4xx." })
    .refine((status) => (status >= 1 && status <= 5) || (status >= 100 && status <= 599), {
      error: "`status` must be an HTTP status such as 422, or a class such as 4 for 4xx.",
    })
    .optional()
    .describe("Only the requests answered with this status, or with any of a class: 2, 4 or 5 for 2xx, 4xx or 5xx."),
};

/** docs/wire-compatibility.md §6.17 (the SDK's own test fixture): the message names `logId`, whatever the path calls it. */
const logId = z.object({ id: z.guid({ error: "The `logId` must be a valid UUID." }) });

/**
 * Selected under another name: an output column called `created_at` would be what `ORDER BY created_at`
 * sorts by, and sorting that text expression cannot use the (team_id, created_at, id) index.
 */
const wireCreatedAt = wireTimestamp("created_at").as("created_at_wire");

function withCreatedAt<Row extends { created_at_wire: string }>({ created_at_wire, ...rest }: Row) {
  return { ...rest, created_at: created_at_wire };
}

/**
 * `GET /logs` and `GET /logs/:id` (docs/wire-compatibility.md §6.17): the team's own API requests, newest first. Each read
 * first flushes this instance's request log writer (`installRequestLogs`), so that a client sees the
 * requests it just made through this instance.
 */
export function logsRoutes({ database }: { database: Database }): ApiRoutes {
  const teamLogs = (teamId: string) => database.tables<ApiTables>().selectFrom("api_request_logs").where("team_id", "=", teamId);

  return (app) => {
    const writer = app.requestLogs;
    if (!writer) throw new Error("the logs routes need installRequestLogs on the app");
    app.get(
      "/logs",
      {
        schema: {
          tags: ["logs"],
          summary: "List API request logs",
          querystring: listQuerySchema(logFilters),
          response: { 200: listSchema(logItem) },
        },
      },
      async (request) => {
        await writer.flush();
        const { method, path, status } = request.query;
        let base = teamLogs(requireAuth(request).teamId).select([
          "id",
          wireCreatedAt,
          "endpoint",
          "method",
          "response_status",
          "user_agent",
        ]);
        if (method) base = base.where("method", "=", method);
        if (path) base = base.where("endpoint", "like", `${likeLiteral(path)}%`);
        if (status !== undefined)
          base =
            status < 10
              ? base.where("response_status", ">=", status * 100).where("response_status", "<", status * 100 + 100)
              : base.where("response_status", "=", status);
        return listPage(base, request.query, { toItem: withCreatedAt });
      },
    );

    app.get(
      "/logs/:id",
      { schema: { tags: ["logs"], summary: "Retrieve an API request log", params: logId, response: { 200: log } } },
      async (request) => {
        await writer.flush();
        const row = await teamLogs(requireAuth(request).teamId)
          .select(["id", wireCreatedAt, "endpoint", "method", "response_status", "user_agent", "request_body", "response_body"])
          .where("id", "=", request.params.id)
          .executeTakeFirst();
        if (!row) throw new TidingsError("not_found", "Log not found");
        return { object: "log" as const, ...withCreatedAt(row) };
      },
    );
  };
}
