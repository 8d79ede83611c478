import { deterministicId, formatTimestamp, TidingsError, type Clock } from "@tidings/core";
import { redeliverDeadLetter, type Bus, type DeadLetter } from "@tidings/bus";
import { handleCommand } from "@tidings/commands";
import { deadLetterDecider, deadLetterStream, type DeadLetterCommand, type DeadLetterFacts } from "@tidings/domain";
import type { EventMetadata, EventStore } from "@tidings/eventstore";

/** What the dead-letter actions work on: the bus that keeps the letters, and the consumers that may have some. */
export interface DeadLetterDeps {
  store: EventStore;
  bus: Pick<Bus, "deadLetters" | "deadLetter" | "removeDeadLetter" | "publish">;
  /** Every saga's durable consumer (`sagaDurables`): where letters are looked for. */
  durables: readonly string[];
  clock: Clock;
}

/** A letter and what it carried, as people see it. */
export interface ListedDeadLetter {
  /** `<consumer>-<letter id>`: how people name it (`tidings deadletters show delivery-42`). */
  ref: string;
  consumer: string;
  letter: DeadLetter;
  event: { id: string; type: string; streamId: string; teamId: string | null } | null;
}

/** How many of one consumer's letters a listing reads at most. */
export const LETTERS_PER_CONSUMER = 100;

/** `delivery-42` → the consumer `delivery` and the letter `42`; durable names hold dashes, letter ids never do. */
function parseRef(ref: string, durables: readonly string[]): { consumer: string; id: string } | undefined {
  const dash = ref.lastIndexOf("-");
  const consumer = ref.slice(0, dash);
  const id = ref.slice(dash + 1);
  return dash > 0 && id && durables.includes(consumer) ? { consumer, id } : undefined;
}

/** The recorded event a message carried, when its body is one (the forwarder's messages all are). */
function carriedEvent(data: unknown): ListedDeadLetter["event"] {
  const body = data as { id?: unknown; type?: unknown; streamId?: unknown; metadata?: { teamId?: unknown } } | null;
  if (typeof body?.id !== "string" || typeof body.type !== "string" || typeof body.streamId !== "string") return null;
  const teamId = typeof body.metadata?.teamId === "string" ? body.metadata.teamId : null;
  return { id: body.id, type: body.type, streamId: body.streamId, teamId };
}

const listed = (consumer: string, letter: DeadLetter): ListedDeadLetter => ({
  ref: `${consumer}-${letter.id}`,
  consumer,
  letter,
  event: carriedEvent(letter.data),
});

/** Whether a team may see a letter: one whose event is the team's. Without a team (the CLI), every letter. */
const visibleTo = (teamId: string | undefined) => (item: ListedDeadLetter) => teamId === undefined || item.event?.teamId === teamId;

/** Every consumer's letters, oldest first within each, up to `LETTERS_PER_CONSUMER` each; only the team's when one is given. */
export async function listDeadLetters(deps: DeadLetterDeps, teamId?: string): Promise<ListedDeadLetter[]> {
  const perConsumer = await Promise.all(
    deps.durables.map(async (consumer) => (await deps.bus.deadLetters(consumer, LETTERS_PER_CONSUMER)).map((l) => listed(consumer, l))),
  );
  return perConsumer.flat().filter(visibleTo(teamId));
}

const notFound = () => new TidingsError("not_found", "Dead letter not found");

/** One letter by its ref; not_found for a letter gone, never there, or another team's. */
export async function findDeadLetter(deps: DeadLetterDeps, ref: string, teamId?: string): Promise<ListedDeadLetter> {
  const parsed = parseRef(ref, deps.durables);
  const letter = parsed && (await deps.bus.deadLetter(parsed.consumer, parsed.id));
  const item = parsed && letter && listed(parsed.consumer, letter);
  if (!item || !visibleTo(teamId)(item)) throw notFound();
  return item;
}

function facts({ consumer, letter, event }: ListedDeadLetter, metadata: EventMetadata): DeadLetterFacts {
  return {
    consumer,
    letterId: letter.id,
    subject: letter.subject,
    messageId: letter.msgId,
    eventId: event?.id ?? null,
    eventType: event?.type ?? null,
    streamId: event?.streamId ?? null,
    teamId: event?.teamId ?? null,
    deliveryCount: letter.deliveryCount,
    error: letter.error,
    orderedBy: metadata.actor ?? "unknown",
  };
}

/**
 * Records the action, then takes it on the bus (docs/operations.md, "Dead letters"): a crash between the two
 * leaves a record and the letter, and ordering it again records nothing new and finishes it.
 */
async function act(
  deps: DeadLetterDeps,
  ref: string,
  type: DeadLetterCommand["type"],
  metadata: EventMetadata,
  teamId: string | undefined,
): Promise<ListedDeadLetter> {
  const item = await findDeadLetter(deps, ref, teamId);
  const command = { type, letter: facts(item, metadata), now: formatTimestamp(deps.clock.now()) };
  await handleCommand({
    store: deps.store,
    streamId: deadLetterStream(deterministicId("dead-letter", item.consumer, item.letter.id, item.letter.msgId)),
    decider: deadLetterDecider,
    command,
    metadata: { ...metadata, ...(item.event?.teamId ? { teamId: item.event.teamId } : {}) },
  });
  if (type === "RetryDeadLetter") await redeliverDeadLetter(deps.bus, item.consumer, item.letter);
  else await deps.bus.removeDeadLetter(item.consumer, item.letter.id);
  return item;
}

/** Publishes the letter's message again for its consumers, once, and removes the letter. */
export const retryDeadLetter = (deps: DeadLetterDeps, ref: string, metadata: EventMetadata, teamId?: string) =>
  act(deps, ref, "RetryDeadLetter", metadata, teamId);

/** Removes the letter: its message gets no more work. */
export const dropDeadLetter = (deps: DeadLetterDeps, ref: string, metadata: EventMetadata, teamId?: string) =>
  act(deps, ref, "DropDeadLetter", metadata, teamId);
