import { deterministicId, sha256Hex } from "@tidings/core";
import { WrongExpectedRevisionError, type EventMetadata, type EventStore } from "@tidings/eventstore";

/**
 * Uniqueness without reading a read model (DESIGN §1): a value is claimed by appending to a stream named
 * after it with expected revision `no_stream`. Only one claim can win, across every api instance.
 */
export const reservationStream = (teamId: string, kind: string, value: string) =>
  `unique-${teamId}-${kind}-${sha256Hex(value)}`;

export type Reservation = { won: true } | { won: false; ownerId: string | undefined };

export async function reserve(
  store: EventStore,
  stream: string,
  ownerId: string,
  metadata: EventMetadata,
): Promise<Reservation> {
  try {
    await store.append(stream, [{ id: deterministicId(stream, ownerId), type: "ValueReserved", data: { ownerId }, metadata }], "no_stream");
    return { won: true };
  } catch (error) {
    if (!(error instanceof WrongExpectedRevisionError)) throw error;
    const [claim] = await store.readStream(stream, { direction: "backwards", maxCount: 1 });
    const owner = (claim?.data as { ownerId?: string } | undefined)?.ownerId;
    // The same owner retrying its own claim has won already.
    return owner === ownerId ? { won: true } : { won: false, ownerId: owner };
  }
}
