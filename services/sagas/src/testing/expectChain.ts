import { expect } from "vitest";
import type { RecordedEvent } from "@tidings/eventstore";

/** The metadata a test's stand-in for an API request gives the events it appends: a chain of its own. */
export function requestLikeMetadata(teamId: string, requestId: string) {
  return { teamId, actor: "api:test", correlationId: requestId, causationId: requestId, occurredAt: new Date().toISOString() };
}

const wireTime = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}\.\d{6}\+00$/;

/**
 * Then: each event carries all four fields (docs/events.md, Metadata): the saga as its actor, the team, the
 * chain's correlation, and as its cause the event before it in `causes` (an event id, or the request's id).
 * `causes` lists, per event, the id its causationId must name; `lane`, the bus lane they were put in, if any.
 */
export function expectChain(
  events: RecordedEvent[],
  expected: { actor: string; teamId: string; correlationId: string; causes: string[]; lane?: string },
): void {
  expect(events.map((e) => e.metadata)).toEqual(
    expected.causes.map((causationId) => ({
      actor: expected.actor,
      teamId: expected.teamId,
      correlationId: expected.correlationId,
      causationId,
      occurredAt: expect.stringMatching(wireTime),
      ...(expected.lane === undefined ? {} : { lane: expected.lane }),
    })),
  );
}
