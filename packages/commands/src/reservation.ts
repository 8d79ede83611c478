import { deterministicId, newId, sha256Hex } from "@tidings/core";
import {
  WrongExpectedRevisionError,
  type AppendResult,
  type EventMetadata,
  type EventStore,
  type RecordedEvent,
  type StreamAppend,
} from "@tidings/eventstore";

/**
 * Uniqueness without reading a read model (docs/architecture.md §1): a value is claimed by appending `ValueReserved` to a
 * stream named after it, at the revision the claimant read (`no_stream` for a value never claimed). Only
 * one claim can win, across every api instance. A released value (`ValueReleased` last) can be claimed
 * again the same way, so the stream keeps the value's whole history of owners.
 */
export const reservationStream = (teamId: string, kind: string, value: string) => `unique-${teamId}-${kind}-${sha256Hex(value)}`;

export type Reservation = { won: true } | { won: false; ownerId: string | undefined };

export interface ReserveOptions {
  /**
   * Asked when another owner holds the claim: false lets this claimant take the value over. It repairs a
   * claim left behind when a process died between reserving and writing its owner, or between changing
   * the owner and releasing. Omitted: a claim holds until released.
   */
  stillHeld?: (ownerId: string, claimedAt: Date) => Promise<boolean>;
}

/** How long a claim whose owner does not exist yet counts as a create still under way. */
const claimGraceMs = 60_000;

/**
 * A claim that holds while its owner, as `load` reads it, exists and `holds` says it keeps the value. A
 * process that died between claiming and creating, or between changing the value and releasing the old
 * one, leaves a claim nobody holds: the next claimant takes it over (a minute after the claim, when the
 * owner was never created, since its create may still be under way).
 */
export function claimHeldWhile<Owner extends { status: string }>(
  load: (ownerId: string) => Promise<Owner>,
  holds: (owner: Owner) => boolean,
  now: () => Date,
): ReserveOptions {
  return {
    async stillHeld(ownerId, claimedAt) {
      const owner = await load(ownerId);
      if (owner.status === "none") return now().getTime() - claimedAt.getTime() < claimGraceMs;
      return holds(owner);
    },
  };
}

const ownerOf = (event: RecordedEvent | undefined) => (event?.data as { ownerId?: string } | undefined)?.ownerId;

async function lastEvent(store: EventStore, stream: string): Promise<RecordedEvent | undefined> {
  const [event] = await store.readStream(stream, { direction: "backwards", maxCount: 1 });
  return event;
}

/** The current owner of a reservation stream's value, or undefined when nobody holds it. */
export async function reservedBy(store: EventStore, stream: string): Promise<string | undefined> {
  const last = await lastEvent(store, stream);
  return last?.type === "ValueReserved" ? ownerOf(last) : undefined;
}

export async function reserve(
  store: EventStore,
  stream: string,
  ownerId: string,
  metadata: EventMetadata,
  options: ReserveOptions = {},
): Promise<Reservation> {
  for (let attempt = 1; ; attempt++) {
    const last = await lastEvent(store, stream);
    const owner = last?.type === "ValueReserved" ? ownerOf(last) : undefined;
    // The same owner retrying its own claim has won already.
    if (owner === ownerId) return { won: true };
    if (owner !== undefined && (!options.stillHeld || (await options.stillHeld(owner, last!.createdAt))))
      return { won: false, ownerId: owner };
    const revision = last ? last.revision : "no_stream";
    const id = deterministicId(stream, `${ownerId}@${String(revision)}`);
    try {
      await store.append(stream, [{ id, type: "ValueReserved", data: { ownerId }, metadata }], revision);
      return { won: true };
    } catch (error) {
      if (!(error instanceof WrongExpectedRevisionError) || attempt >= 10) throw error;
    }
  }
}

/**
 * Claims a value expected to be unclaimed and writes its owner's first events in the same appendMany, one
 * round trip instead of two. Returns the results of `writes`, or undefined when the value is claimed
 * already or a write's stream exists: the caller then takes the slow way (`reserve`, then its command),
 * which reads and decides. Where appendMany is not atomic (EventStoreDB) a claim may be left without its
 * owner's events; `stillHeld` repairs that as it does for a process that died between the two steps.
 */
// The claim's event id is random: a deterministic one would be taken for an idempotent retry by an owner
// that claimed and released before.
export async function claimAlongside(
  store: EventStore,
  stream: string,
  ownerId: string,
  metadata: EventMetadata,
  writes: StreamAppend[],
): Promise<AppendResult[] | undefined> {
  try {
    const claim = { id: newId(), type: "ValueReserved", data: { ownerId }, metadata };
    const [, ...results] = await store.appendMany([{ streamId: stream, events: [claim], expectedRevision: "no_stream" }, ...writes]);
    return results;
  } catch (error) {
    if (error instanceof WrongExpectedRevisionError) return undefined;
    throw error;
  }
}

/** Gives the value up if `ownerId` holds it; true when it was released by this call. */
export async function release(store: EventStore, stream: string, ownerId: string, metadata: EventMetadata): Promise<boolean> {
  for (let attempt = 1; ; attempt++) {
    const last = await lastEvent(store, stream);
    if (last?.type !== "ValueReserved" || ownerOf(last) !== ownerId) return false;
    try {
      const id = deterministicId(stream, `release:${ownerId}@${String(last.revision)}`);
      await store.append(stream, [{ id, type: "ValueReleased", data: { ownerId }, metadata }], last.revision);
      return true;
    } catch (error) {
      if (!(error instanceof WrongExpectedRevisionError) || attempt >= 10) throw error;
    }
  }
}
