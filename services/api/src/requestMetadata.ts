import type { FastifyRequest } from "fastify";
import { formatTimestamp, type Clock } from "@tidings/core";
import type { EventMetadata } from "@tidings/eventstore";
import type { RequestAuth } from "./plugins/auth.js";

/**
 * The metadata of events caused by an API request (docs/architecture.md §4). The request id is also the id of the
 * request's log entry, so an auditor can join an event to the request that caused it.
 */
export function requestMetadata(request: FastifyRequest, auth: RequestAuth, clock: Clock): EventMetadata {
  return {
    teamId: auth.teamId,
    actor: `api:${auth.apiKeyId}`,
    requestId: request.id,
    correlationId: request.id,
    // The request is the cause of the first events of a chain; sagas carry the chain on with event ids.
    causationId: request.id,
    occurredAt: formatTimestamp(clock.now()),
  };
}
