import { WrongExpectedRevisionError, type ExpectedRevision } from "../port.js";

/**
 * The client's error classes differ between `@eventstore/db-client` and its successor, and the ones raised
 * inside gRPC callbacks are not always the exported classes, so these checks read the stable fields instead:
 * the error `type` the client sets and the numeric gRPC `code`.
 */
interface ClientErrorFields {
  type?: unknown;
  code?: unknown;
  actualVersion?: unknown;
}

function fieldsOf(error: unknown): ClientErrorFields {
  return typeof error === "object" && error !== null ? (error as ClientErrorFields) : {};
}

/** A read of a stream that never existed or was soft-deleted. */
export function isStreamNotFound(error: unknown): boolean {
  return fieldsOf(error).type === "stream-not-found";
}

/** gRPC UNAVAILABLE: nothing answers at the address, or the connection dropped. */
export function isUnavailable(error: unknown): boolean {
  return fieldsOf(error).code === 14;
}

/** The port's error for the client's wrong-expected-version error; undefined for any other error. */
export function toWrongExpectedRevisionError(
  error: unknown,
  streamId: string,
  expected: ExpectedRevision,
): WrongExpectedRevisionError | undefined {
  const { type, actualVersion } = fieldsOf(error);
  if (type !== "wrong-expected-version") return undefined;
  // Some of the client's code paths stand for a missing stream with revision -1.
  const actual = typeof actualVersion === "bigint" && actualVersion >= 0n ? actualVersion : "no_stream";
  return new WrongExpectedRevisionError(streamId, expected, actual);
}
