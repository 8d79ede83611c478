import { newId } from "@tidings/core";
import { DomainRejection } from "@tidings/commands";
import { isDomainError, type Decider } from "@tidings/domain";
import { WrongExpectedRevisionError, type EventMetadata, type EventStore, type ExpectedRevision } from "@tidings/eventstore";

export interface HeldStream<Command> {
  /** Decides and appends; resolves with whether it appended anything (a command already done appends nothing). */
  record(command: Command): Promise<boolean>;
}

/**
 * A stream that one run mostly writes alone (an import's checkpoints): its state and revision are kept
 * between writes instead of read again for each, which a long run would pay for with a read that grows at
 * every write. Another writer meanwhile costs one conflict, then the stream is read again and the command
 * decided again, as `handleCommand` does.
 */
export async function holdStream<Command, Event extends { type: string; data: unknown }, State>(
  store: EventStore,
  streamId: string,
  decider: Decider<Command, Event, State>,
  /** Called at each write, so what it says of time (`occurredAt`) is the write's. */
  metadata: () => EventMetadata,
  /** The stream as the caller just read it, folded: not read again. */
  known?: { state: State; revision: ExpectedRevision },
): Promise<HeldStream<Command>> {
  let state = known?.state ?? decider.initialState;
  let revision: ExpectedRevision = known?.revision ?? "no_stream";
  // Only the events after those already folded: a broadcast's stream holds its whole plan, and folding it
  // again opened every recipient (and fetched every recipient's key) at each conflict.
  const load = async () => {
    const recorded = await store.readStream(streamId, typeof revision === "bigint" ? { fromRevision: revision + 1n } : undefined);
    state = recorded.map((e) => ({ type: e.type, data: e.data }) as Event).reduce(decider.evolve, state);
    if (recorded.length > 0) revision = recorded[recorded.length - 1]!.revision;
  };
  if (!known) await load();
  return {
    async record(command) {
      for (let attempt = 1; ; attempt++) {
        const decided = decider.decide(command, state);
        if (isDomainError(decided)) throw new DomainRejection(decided);
        if (decided.length === 0) return false;
        try {
          const written = metadata();
          const result = await store.append(
            streamId,
            decided.map((event) => ({ id: newId(), type: event.type, data: event.data, metadata: written })),
            revision,
          );
          revision = result.nextExpectedRevision;
          state = decided.reduce(decider.evolve, state);
          return true;
        } catch (error) {
          if (!(error instanceof WrongExpectedRevisionError) || attempt >= 10) throw error;
          await load();
        }
      }
    },
  };
}
