import type { FastifyBaseLogger, FastifyInstance } from "fastify";
import type { Database } from "@tidings/postgres";
import { runPeriodically } from "./periodicTask.js";
import { withoutAddresses } from "./requestLog.js";
import { pruneRequestLogs } from "./requestLogsRetention.js";
import { RequestLogWriter, type RequestLogWriterOptions } from "./requestLogsWriter.js";

export interface RequestLogsOptions extends RequestLogWriterOptions {
  database: Database;
  logger: Pick<FastifyBaseLogger, "warn" | "error">;
  /** LOG_RETENTION_DAYS. */
  retentionDays: number;
  pruneEveryMs?: number;
}

declare module "fastify" {
  interface FastifyInstance {
    /** The request log's writer; `GET /logs` flushes it before reading. */
    requestLogs: RequestLogWriter;
  }
  interface FastifyRequest {
    /** The body as the client sent it, before the route's schema stripped or converted anything. */
    sentBody: unknown;
    /** The reply body as sent, for the request log. */
    sentPayload: unknown;
    /**
     * Log this request without its bodies, and its path without addresses: set by a route whose request
     * names a person it erases (`DELETE /contacts/:idOrEmail`).
     */
    logWithoutBodies: boolean;
  }
}

/**
 * The stored API request log (`GET /logs`), not the process log: every request that passed auth is
 * recorded with its bodies, secrets redacted, by a buffered writer. Must be installed after the auth
 * plugin, so that its hooks see `request.auth`. The writer is decorated onto the app as `requestLogs`:
 * `GET /logs` flushes it before it reads, so that a client sees its own earlier requests.
 */
export function installRequestLogs(app: FastifyInstance, options: RequestLogsOptions): RequestLogWriter {
  const writer = new RequestLogWriter(options.database, options.logger, options);
  app.decorate("requestLogs", writer);
  app.decorateRequest("sentBody", undefined);
  app.decorateRequest("sentPayload", undefined);
  app.decorateRequest("logWithoutBodies", false);

  app.addHook("preValidation", (request, _reply, done) => {
    if (request.auth) request.sentBody = request.body;
    done();
  });
  app.addHook("onSend", (request, _reply, payload, done) => {
    if (request.auth) request.sentPayload = payload;
    done(null, payload);
  });
  // Wall-clock microseconds, nudged by one when needed so that requests logged within the same
  // millisecond keep their order in `GET /logs` (which sorts by time, then by random id).
  let lastArrivedAtMicros = 0;
  // After the reply has gone out, with the status the client actually got.
  app.addHook("onResponse", (request, reply, done) => {
    const caller = request.auth;
    if (caller) {
      lastArrivedAtMicros = Math.max(Math.floor((Date.now() - reply.elapsedTime) * 1000), lastArrivedAtMicros + 1);
      const header = request.headers["user-agent"];
      const erasing = request.logWithoutBodies;
      writer.push({
        id: request.id,
        teamId: caller.teamId,
        apiKeyId: caller.apiKeyId,
        arrivedAtMicros: lastArrivedAtMicros,
        endpoint: erasing ? withoutAddresses(endpointOf(request.url)) : endpointOf(request.url),
        method: request.method,
        responseStatus: reply.statusCode,
        userAgent: typeof header === "string" ? header : undefined,
        requestBody: erasing ? undefined : request.sentBody,
        replyPayload: erasing ? undefined : request.sentPayload,
      });
    }
    done();
  });
  app.addHook("onClose", async () => {
    await writer.close();
  });
  runPeriodically(app, {
    name: "prune request logs",
    everyMs: options.pruneEveryMs ?? 60 * 60_000,
    run: () => pruneRequestLogs(options.database, options.retentionDays),
  });
  return writer;
}

/** The path as requested, without the query string: `/emails/<id>`, as the log of docs/wire-compatibility.md §10.9 shows it. */
function endpointOf(url: string): string {
  const query = url.indexOf("?");
  return query === -1 ? url : url.slice(0, query);
}
