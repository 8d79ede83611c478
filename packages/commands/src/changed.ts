import type { Decider } from "@tidings/domain";
import type { EventMetadata, EventStore, Position } from "@tidings/eventstore";
import { handleCommand } from "./handleCommand.js";

/**
 * What a write to one resource answers: its id and, when the write appended anything, where its last
 * event landed, so the caller can wait until the read models hold the change (read-your-writes).
 */
export interface Changed {
  id: string;
  position?: Position;
}

export const changed = (id: string, position: Position | undefined): Changed => ({ id, ...(position ? { position } : {}) });

/** Runs commands on resources of one kind, each on the stream of the resource it names, answering what changed. */
export function commandRunner<Command, Event extends { type: string; data: unknown }, State>(
  streamOf: (id: string) => string,
  decider: Decider<Command, Event, State>,
) {
  return async (store: EventStore, id: string, command: Command, metadata: EventMetadata): Promise<Changed> => {
    const { position } = await handleCommand({ store, streamId: streamOf(id), decider, command, metadata });
    return changed(id, position);
  };
}
