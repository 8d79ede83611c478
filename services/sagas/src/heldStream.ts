import { newId } from "@tidings/core";
import { DomainRejection } from "@tidings/commands";
import { fold, isDomainError, type Decider } from "@tidings/domain";
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
): Promise<HeldStream<Command>> {
  let state = decider.initialState;
  let revision: ExpectedRevision = "no_stream";
  const load = async () => {
    const recorded = await store.readStream(streamId);
    state = fold(
      decider,
      recorded.map((e) => ({ type: e.type, data: e.data }) as Event),
    );
    revision = recorded.length === 0 ? "no_stream" : recorded[recorded.length - 1]!.revision;
  };
  await load();
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
