import { formatTimestamp, newId, TidingsError, type Clock } from "@tidings/core";
import type { Decider } from "@tidings/domain";
import type { EventMetadata, EventStore } from "@tidings/eventstore";
import type { Changed } from "./changed.js";
import { decideCreate } from "./handleCommand.js";
import { release, reserve, type ReserveOptions } from "./reservation.js";

/** What a handler needs to run its commands: the event store, and the clock that stamps them. */
export type CommandDeps = { store: EventStore; clock: Clock };

/** The time a command records, from the handler's clock. */
export const commandNow = (deps: Pick<CommandDeps, "clock">): string => formatTimestamp(deps.clock.now());

/** A unique value a resource holds (a name, a key, an alias); `taken` is the 422 message when another resource holds it. */
export interface ValueClaim {
  stream: string;
  options: ReserveOptions;
  taken: string;
}

/** Claims the value for `ownerId`, or refuses with 422 `validation_error`, naming the field like any other bad input. */
export async function claimValue(store: EventStore, claim: ValueClaim, ownerId: string, metadata: EventMetadata): Promise<void> {
  const { won } = await reserve(store, claim.stream, ownerId, metadata, claim.options);
  if (!won) throw new TidingsError("validation_error", claim.taken);
}

/** How a kind of resource is created: its decider, its runner (`commandRunner`), and its create command for a new id. */
export interface Creation<Command, Event, State> {
  decider: Decider<Command, Event, State>;
  run: (store: EventStore, id: string, command: Command, metadata: EventMetadata) => Promise<Changed>;
  command: (id: string, now: string) => Command;
}

/**
 * Creates a resource holding a unique value, or none (`claim` null). The command is decided first, so a create
 * refused for its input never holds the value; a failure after the claim gives the value back.
 */
export async function createClaiming<Command, Event, State>(
  deps: CommandDeps,
  creation: Creation<Command, Event, State>,
  claim: ValueClaim | null,
  metadata: EventMetadata,
  /** Given by a caller that must create the same resource when it runs again (a resumed migration). */
  id: string = newId(),
): Promise<Changed> {
  const command = creation.command(id, commandNow(deps));
  decideCreate(creation.decider, command);
  if (claim) await claimValue(deps.store, claim, id, metadata);
  try {
    return await creation.run(deps.store, id, command, metadata);
  } catch (error) {
    if (claim) await release(deps.store, claim.stream, id, metadata);
    throw error;
  }
}
