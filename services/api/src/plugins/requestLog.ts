import { LogController, type FastifyReply, type FastifyRequest } from "fastify";
import type { Logger } from "@tidings/core";

/**
 * One log line per request, written when it completes, instead of fastify's pair of lines (arrival and
 * completion): half the logging cost on the hot path, and the line has what an operator searches by.
 */
export class RequestLog extends LogController {
  constructor() {
    super({ requestIdLogLabel: "requestId" });
  }

  override incomingRequest(): void {}

  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    // With LOG_LEVEL above `info` a succeeded request's line would be dropped: it is not built either.
    if (!error && !(reply.log as Logger).isLevelEnabled("info")) return;
    // The path only: a query can hold a credential (the signature of an attachment download URL).
    const line = {
      method: request.method,
      url: withoutAddresses(request.url.split("?")[0]!),
      statusCode: reply.statusCode,
      ms: Math.round(reply.elapsedTime * 10) / 10,
    };
    if (error) reply.log.error({ ...line, err: error }, "request errored");
    else reply.log.info(line, "request completed");
  }
}

/**
 * The path with every segment that holds an email address (`/contacts/:idOrEmail`, `/suppressions/:email`)
 * written as `[address]`: a log file is kept and shipped where an erasure cannot reach it, so it must not
 * hold a person's address. Ids stay, for an operator to search by.
 */
export function withoutAddresses(path: string): string {
  return path
    .split("/")
    .map((segment) => (/@|%40/i.test(segment) ? "[address]" : segment))
    .join("/");
}
