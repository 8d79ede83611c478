import { describe, expect, it } from "vitest";
import { WrongExpectedRevisionError } from "../port.js";
import { StreamNotFoundError, WrongExpectedVersionError, convertToCommandError } from "./client.js";
import { isStreamNotFound, isUnavailable, toWrongExpectedRevisionError } from "./clientErrors.js";

function wrongExpectedVersion(current: bigint | "no_stream") {
  return new WrongExpectedVersionError(undefined, { streamName: "email-1", expected: 3n, current });
}

/** The shape of a gRPC ServiceError, as the client receives it before converting it. */
function grpcError(code: number, details: string) {
  return Object.assign(new Error(`${code} ${details}`), { code, details });
}

describe("toWrongExpectedRevisionError", () => {
  it("carries the stream, our expectation and the actual revision", () => {
    const error = toWrongExpectedRevisionError(wrongExpectedVersion(5n), "email-1", 3n);
    expect(error).toBeInstanceOf(WrongExpectedRevisionError);
    expect(error).toMatchObject({ streamId: "email-1", expected: 3n, actual: 5n });
  });

  it("reports a missing stream as no_stream, whether the client says so or uses -1", () => {
    expect(toWrongExpectedRevisionError(wrongExpectedVersion("no_stream"), "email-1", "stream_exists")?.actual).toBe("no_stream");
    expect(toWrongExpectedRevisionError(wrongExpectedVersion(-1n), "email-1", 0n)?.actual).toBe("no_stream");
  });

  it("keeps the port's expectation rather than the client's spelling of it", () => {
    expect(toWrongExpectedRevisionError(wrongExpectedVersion(2n), "email-1", "no_stream")?.expected).toBe("no_stream");
  });

  it("leaves any other error alone", () => {
    expect(toWrongExpectedRevisionError(new StreamNotFoundError(undefined, "email-1"), "email-1", 0n)).toBeUndefined();
    expect(toWrongExpectedRevisionError(new Error("boom"), "email-1", 0n)).toBeUndefined();
    expect(toWrongExpectedRevisionError(undefined, "email-1", 0n)).toBeUndefined();
  });
});

describe("client error checks", () => {
  it("recognises a missing stream by its type", () => {
    expect(isStreamNotFound(new StreamNotFoundError(undefined, "email-1"))).toBe(true);
    expect(isStreamNotFound(wrongExpectedVersion(1n))).toBe(false);
    expect(isStreamNotFound("stream-not-found")).toBe(false);
  });

  it("recognises UNAVAILABLE by gRPC code, as the client converts it", () => {
    expect(isUnavailable(convertToCommandError(grpcError(14, "No connection established")))).toBe(true);
    expect(isUnavailable(convertToCommandError(grpcError(4, "Deadline exceeded")))).toBe(false);
    expect(isUnavailable(null)).toBe(false);
  });
});
