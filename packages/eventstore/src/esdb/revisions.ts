import type { ExpectedRevision, ReadStreamOptions } from "../port.js";
import { ANY, END, NO_STREAM, START, STREAM_EXISTS, type AppendExpectedRevision, type ReadRevision } from "./client.js";

export function toEsdbExpectedRevision(expected: ExpectedRevision): AppendExpectedRevision {
  switch (expected) {
    case "any":
      return ANY;
    case "no_stream":
      return NO_STREAM;
    case "stream_exists":
      return STREAM_EXISTS;
    default:
      return expected;
  }
}

/** Where a stream read starts: the port's default depends on the direction, the client's does not. */
export function toEsdbReadRevision(
  from: ReadStreamOptions["fromRevision"],
  direction: NonNullable<ReadStreamOptions["direction"]>,
): ReadRevision {
  if (from === undefined) return direction === "backwards" ? END : START;
  if (from === "start") return START;
  if (from === "end") return END;
  return from;
}
