import { formatTimestamp, type Clock } from "@tidings/core";
import { commandRunner, type Changed } from "@tidings/commands";
import { contactImportDecider, contactImportStream, type ContactImportRequest } from "@tidings/domain";
import type { EventMetadata, EventStore } from "@tidings/eventstore";

const run = commandRunner(contactImportStream, contactImportDecider);

/**
 * Records an import of an uploaded file as queued, for the contact-import saga to run. The api checks the
 * request against the team first; tests and the bench queue their own files the same way.
 */
export function enqueueContactImport(
  deps: { store: EventStore; clock: Clock },
  request: ContactImportRequest,
  metadata: EventMetadata,
): Promise<Changed> {
  const command = { type: "QueueContactImport" as const, ...request, now: formatTimestamp(deps.clock.now()) };
  return run(deps.store, request.importId, command, metadata);
}
