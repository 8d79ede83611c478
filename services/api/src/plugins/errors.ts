import type { Socket } from "node:net";
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { TidingsError } from "@tidings/core";
import { DomainRejection } from "@tidings/commands";
import { z } from "zod";
import { isConnectionLoss, isUndefinedTable } from "@tidings/postgres";
import { errorTable, unexpectedError, wireErrorNames } from "../errorTable.js";

/** The only error body a client ever sees: three keys, always (docs/wire-compatibility.md §3.1). The OpenAPI document's `Error`. */
export const errorBodySchema = z
  .object({
    statusCode: z.number().int().min(400).max(599).describe("The HTTP status of the answer, repeated."),
    message: z.string().describe("What went wrong, for people; a field or parameter is named in backticks."),
    name: z.enum(wireErrorNames).describe("What went wrong, for programs."),
  })
  .strict();

export type ErrorBody = z.infer<typeof errorBodySchema>;

/** Fastify's own failures, raised before a route runs, and the code each one is answered with. */
const frameworkCodes: Record<string, string> = {
  FST_ERR_CTP_BODY_TOO_LARGE: "body_too_large",
  FST_ERR_CTP_INVALID_MEDIA_TYPE: "unsupported_media_type",
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: "malformed_request",
  FST_ERR_BAD_URL: "malformed_request",
  FST_ERR_MAX_PARAM_LENGTH: "malformed_request",
};

/**
 * Turns anything thrown while handling a request into the client's error body. Only codes from the error
 * table reach the client with their own message; everything else is a 500 that says nothing about why.
 */
export function errorBody(error: unknown, request: FastifyRequest): { body: ErrorBody; unexpected: boolean } {
  // A decider's rule, broken: its name is a code of this table (docs/architecture.md §3).
  if (error instanceof DomainRejection) return errorBody(new TidingsError(error.error.name, error.error.message), request);
  if (error instanceof TidingsError) {
    const wire = errorTable[error.code];
    if (wire) return { body: { ...wire, message: error.message }, unexpected: false };
    return { body: { ...unexpectedError, message: unexpectedMessage }, unexpected: true };
  }
  // An api process can start before any projector has created the read models (a fresh server-mode
  // install): that is the service not being ready yet, not a failure of this request.
  if (isUndefinedTable(error)) {
    return { body: { ...errorTable.service_unavailable!, message: readModelsMissing }, unexpected: false };
  }
  // The database restarting or failing over is the service unavailable for a moment, not a fault of
  // this request: the client should retry it.
  if (isConnectionLoss(error)) return { body: { ...errorTable.service_unavailable!, message: databaseUnavailable }, unexpected: false };
  const fastifyError = error as Partial<FastifyError>;
  const code = fastifyError.code ? frameworkCodes[fastifyError.code] : undefined;
  if (code) return { body: { ...errorTable[code]!, message: frameworkMessage(code, fastifyError, request) }, unexpected: false };
  // Other 4xx errors come from fastify or its plugins rejecting the request itself; their messages are
  // written for clients, and answering them with a 500 would blame the server for bad input.
  const status = fastifyError.statusCode;
  if (typeof status === "number" && status >= 400 && status < 500) {
    return {
      body: { statusCode: status, name: "validation_error", message: fastifyError.message ?? "Invalid request." },
      unexpected: false,
    };
  }
  return { body: { ...unexpectedError, message: unexpectedMessage }, unexpected: true };
}

const databaseUnavailable = "The database is unavailable for a moment; retry the request.";
const readModelsMissing = "The read models are not built yet; start a projector (`tidings serve --role projector`) and retry.";

const unexpectedMessage = "An unexpected error occurred; the request id identifies it in the server's logs.";

function frameworkMessage(code: string, error: Partial<FastifyError>, request: FastifyRequest): string {
  switch (code) {
    case "body_too_large":
      return `The request body is larger than the limit of ${request.routeOptions.bodyLimit} bytes for this endpoint.`;
    case "unsupported_media_type": {
      const taken = request.routeOptions.schema?.consumes ?? ["application/json"];
      return `The Content-Type \`${request.headers["content-type"] ?? ""}\` is not supported; send ${taken.map((type) => `\`${type}\``).join(" or ")}.`;
    }
    default:
      return error.message ?? "The request is malformed.";
  }
}

export function sendError(error: unknown, request: FastifyRequest, reply: FastifyReply): FastifyReply {
  const { body, unexpected } = errorBody(error, request);
  if (unexpected) {
    const reason = error instanceof TidingsError ? `error code \`${error.code}\` has no row in errorTable` : "request failed unexpectedly";
    request.log.error({ err: error }, reason);
  }
  return reply.code(body.statusCode).send(body);
}

export function installErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler((error, request, reply) => sendError(error, request, reply));
}

/** For fastify's `frameworkErrors` option: failures found while routing, before any hook has run. */
export function frameworkErrors(error: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
  reply.header("x-request-id", request.id);
  sendError(error, request, reply);
}

/**
 * For fastify's `clientErrorHandler` option: a request too broken for HTTP parsing never becomes a
 * request object, so the answer is written to the socket directly, still in the contract's shape.
 */
export function clientErrorHandler(error: NodeJS.ErrnoException, socket: Socket): void {
  if (error.code === "ECONNRESET" || socket.destroyed) return;
  const [code, status, reason] =
    error.code === "ERR_HTTP_REQUEST_TIMEOUT"
      ? (["request_timeout", 408, "Request Timeout"] as const)
      : error.code === "HPE_HEADER_OVERFLOW"
        ? (["headers_too_large", 431, "Request Header Fields Too Large"] as const)
        : (["malformed_request", 400, "Bad Request"] as const);
  const message =
    status === 408
      ? "The request took too long to arrive."
      : status === 431
        ? "The request headers are too large."
        : "The request is not valid HTTP.";
  const body = JSON.stringify({ ...errorTable[code]!, message });
  if (socket.writable) {
    socket.write(
      `HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy(error);
}
