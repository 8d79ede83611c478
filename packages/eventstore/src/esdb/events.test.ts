import { describe, expect, it } from "vitest";
import { anEsdbEvent } from "./anEsdbEvent.js";
import { isSystemEvent, positionOf, toEventData, toRecordedEvent } from "./events.js";

describe("toEventData", () => {
  it("writes JSON under the event's own id, so a retry is recognised as the same event", () => {
    const data = toEventData({ id: "5f0c", type: "EmailQueued", data: { a: 1 }, metadata: { teamId: "t" } });
    expect(data).toEqual({
      id: "5f0c",
      contentType: "application/json",
      type: "EmailQueued",
      data: { a: 1 },
      metadata: { teamId: "t" },
    });
  });
});

describe("toRecordedEvent", () => {
  it("maps every field, with createdAt from the server's created time", () => {
    expect(toRecordedEvent(anEsdbEvent({ revision: 4n }))).toEqual({
      id: "0b9b2a3e-8f1c-4c1e-9a57-3c1d2e4f5a60",
      type: "EmailQueued",
      data: { to: "a@example.com" },
      metadata: { teamId: "team-1" },
      streamId: "email-1",
      revision: 4n,
      position: { commit: 1000n, prepare: 1000n },
      createdAt: new Date("2026-01-02T03:04:05.678Z"),
    });
  });

  it("passes metadata through untouched, unknown keys included", () => {
    const metadata = { teamId: "t", actor: "cli", $correlationId: "c", custom: { nested: [1] } };
    expect(toRecordedEvent(anEsdbEvent({ metadata })).metadata).toEqual(metadata);
  });

  it("reads missing or non-object metadata as empty", () => {
    expect(toRecordedEvent(anEsdbEvent({ metadata: undefined })).metadata).toEqual({});
    expect(toRecordedEvent(anEsdbEvent({ metadata: new Uint8Array([1, 2]) })).metadata).toEqual({});
    expect(toRecordedEvent(anEsdbEvent({ metadata: ["a"] })).metadata).toEqual({});
  });

  it("refuses an event without a position instead of inventing one", () => {
    expect(() => toRecordedEvent(anEsdbEvent({ position: undefined }))).toThrow(/22\.6/);
  });
});

describe("positionOf", () => {
  it("keeps commit and prepare apart", () => {
    expect(positionOf({ position: { commit: 9n, prepare: 7n } })).toEqual({ commit: 9n, prepare: 7n });
  });

  it("treats the largest u64 of servers before 22.6, and the 0/0 default, as no position", () => {
    const max = 18446744073709551615n;
    expect(positionOf({ position: { commit: max, prepare: max } })).toBeUndefined();
    expect(positionOf({ position: { commit: 0n, prepare: 0n } })).toBeUndefined();
    expect(positionOf({ position: undefined })).toBeUndefined();
  });
});

describe("isSystemEvent", () => {
  it("flags $-prefixed types and streams only", () => {
    expect(isSystemEvent({ type: "$metadata", streamId: "$$email-1" })).toBe(true);
    expect(isSystemEvent({ type: "$>", streamId: "$ce-email" })).toBe(true);
    expect(isSystemEvent({ type: "$statsCollected", streamId: "$stats-127.0.0.1:2113" })).toBe(true);
    expect(isSystemEvent({ type: "EmailQueued", streamId: "$scavenges" })).toBe(true);
    expect(isSystemEvent({ type: "EmailQueued", streamId: "email-1" })).toBe(false);
    expect(isSystemEvent({ type: "Price$Changed", streamId: "email-$1" })).toBe(false);
  });
});
