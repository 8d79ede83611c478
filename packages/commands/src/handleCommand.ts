import { newId } from "@tidings/core";
import { fold, isDomainError, type Decider, type DomainError } from "@tidings/domain";
import { WrongExpectedRevisionError, type EventMetadata, type EventStore, type Position, type RecordedEvent } from "@tidings/eventstore";

export interface CommandOutcome<Event> {
  /** The events this command appended (empty when the decider found nothing to do). */
  events: Event[];
  /** Where the last appended event landed, for read-your-writes; undefined when nothing was appended. */
  position?: Position;
}

export interface HandleCommandOptions<Command, Event extends { type: string; data: unknown }, State> {
  store: EventStore;
  streamId: string;
  decider: Decider<Command, Event, State>;
  command: Command;
  /**
   * A function when the metadata depends on the stream: a write whose caller knows no team (a tracking link), or
   * one whose chain continues the stream's (its events as read, empty for a `likelyNew` first attempt).
   */
  metadata: EventMetadata | ((state: State, recorded: RecordedEvent[]) => EventMetadata);
  /**
   * Attempts before a conflict is given up on. Each lost attempt means another writer won, so N
   * concurrent writers on one stream all finish within N attempts.
   */
  maxAttempts?: number;
  /**
   * The caller expects the stream not to exist yet (a create with a fresh id): the first attempt decides
   * on the initial state and appends at `no_stream` without reading; a conflict falls back to reading.
   */
  likelyNew?: boolean;
}

export class DomainRejection extends Error {
  override readonly name = "DomainRejection";
  constructor(readonly error: DomainError) {
    super(error.message);
  }
}

/**
 * The events a create would append to a new stream, or its refusal, thrown. A create that claims a unique
 * value asks this before claiming, so a create refused for its input never holds a claim.
 */
export function decideCreate<Command, Event, State>(decider: Decider<Command, Event, State>, command: Command): Event[] {
  const decided = decider.decide(command, decider.initialState);
  if (isDomainError(decided)) throw new DomainRejection(decided);
  return decided;
}

/**
 * Load a stream, fold it, decide, append with the revision we read. A concurrent append makes the
 * append fail with a conflict; we then decide again on the new state, because the decision may change.
 * Repeating a command is safe when its decider answers an already-applied command with no events.
 */
export async function handleCommand<Command, Event extends { type: string; data: unknown }, State>(
  options: HandleCommandOptions<Command, Event, State>,
): Promise<CommandOutcome<Event>> {
  const { store, streamId, decider, command, metadata } = options;
  const attempts = options.maxAttempts ?? 10;
  for (let attempt = 1; ; attempt++) {
    const recorded = attempt === 1 && options.likelyNew ? [] : await store.readStream(streamId);
    const state = fold(
      decider,
      recorded.map((e) => ({ type: e.type, data: e.data }) as Event),
    );
    const decided = decider.decide(command, state);
    if (isDomainError(decided)) throw new DomainRejection(decided);
    if (decided.length === 0) return { events: [] };
    const revision = recorded.length === 0 ? "no_stream" : recorded[recorded.length - 1]!.revision;
    const written = typeof metadata === "function" ? metadata(state, recorded) : metadata;
    try {
      const result = await store.append(
        streamId,
        decided.map((event) => ({ id: newId(), type: event.type, data: event.data, metadata: written })),
        revision,
      );
      return { events: decided, position: result.position };
    } catch (error) {
      if (error instanceof WrongExpectedRevisionError && attempt < attempts) continue;
      throw error;
    }
  }
}
