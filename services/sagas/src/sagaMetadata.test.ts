import { describe, expect, it } from "vitest";
import { continuing, reactingTo, sagaMetadata } from "./sagaMetadata.js";

const event = (id: string, correlationId?: string) => ({ id, metadata: correlationId === undefined ? {} : { correlationId } });

describe("a saga's place in a chain", () => {
  it("reacting to an event: keeps its correlation and names it as the cause", () => {
    // Given an event of the chain a request started
    const given = event("e1", "request-1");
    // When a saga reacts to it, then
    expect(reactingTo(given)).toEqual({ correlationId: "request-1", causationId: "e1" });
  });

  it("reacting to an event with no correlation: the chain starts at that event", () => {
    expect(reactingTo(event("e1"))).toEqual({ correlationId: "e1", causationId: "e1" });
  });

  it("continuing a stream: the correlation of its origin, caused by its last event", () => {
    // Given a stream a request started, and a deferral since
    const recorded = [event("queued", "request-1"), event("delayed", "request-1")];
    // When a timer acts on it, then
    expect(continuing(recorded)).toEqual({ correlationId: "request-1", causationId: "delayed" });
    // And with an origin other than the first event (a later schedule), its correlation
    expect(continuing([event("created", "request-0"), event("scheduled", "request-2")], recorded[1])).toEqual({
      correlationId: "request-1",
      causationId: "scheduled",
    });
  });

  it("writes all four fields with the saga as actor and the time by its clock", () => {
    const clock = { now: () => new Date("2026-01-02T03:04:05.678Z") };
    expect(sagaMetadata(clock, "delivery", { teamId: "t1", correlationId: "request-1", causationId: "e1" })).toEqual({
      teamId: "t1",
      correlationId: "request-1",
      causationId: "e1",
      actor: "saga:delivery",
      occurredAt: "2026-01-02 03:04:05.678000+00",
    });
  });
});
