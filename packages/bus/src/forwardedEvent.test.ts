import type { RecordedEvent } from "@tidings/eventstore";
import { describe, expect, it } from "vitest";
import { eventSubject, forwardedEventHeaders, forwardedEventSubject, fromForwardedEvent, toForwardedEvent } from "./forwardedEvent.js";
import { subjectMatches } from "./subject.js";

const anEvent = (overrides: Partial<RecordedEvent> = {}): RecordedEvent => ({
  id: "0e7f8d0c-54f5-4a8f-9a51-0d5f4f3b8a10",
  type: "EmailQueued",
  streamId: "email-3f1c2a9e-6f0b-4c2e-8a43-2b7d5e9c1f00",
  revision: 12n,
  position: { commit: 9007199254740993n, prepare: 4n },
  data: { to: ["a@example.com"] },
  metadata: { teamId: "team-1", actor: "cli" },
  createdAt: new Date("2024-05-06T07:08:09.123Z"),
  ...overrides,
});

describe("forwarded events", () => {
  it("go to events.<category>.<Type>", () => {
    expect(forwardedEventSubject(anEvent())).toBe("events.email.EmailQueued");
    expect(forwardedEventSubject(anEvent({ streamId: "unique-team-contact-email-ab12", type: "AddressReserved" }))).toBe(
      "events.unique.AddressReserved",
    );
  });

  it("go to events.<category>.<Type>.<lane> when their metadata puts them in a lane, which only that lane's filter and the category's > take", () => {
    const bulk = forwardedEventSubject(anEvent({ metadata: { teamId: "team-1", lane: "bulk" } }));
    expect(bulk).toBe("events.email.EmailQueued.bulk");
    expect(forwardedEventSubject(anEvent({ metadata: { teamId: "team-1", lane: "" } }))).toBe("events.email.EmailQueued");
    expect(subjectMatches(eventSubject("email", "EmailQueued", "bulk"), bulk)).toBe(true);
    expect(subjectMatches(eventSubject("email", "EmailQueued"), bulk)).toBe(false);
    expect(subjectMatches(eventSubject("email", ">"), bulk)).toBe(true);
    expect(subjectMatches(eventSubject("email", "EmailQueued", "bulk"), "events.email.EmailQueued")).toBe(false);
  });

  it("are published with the trace context their append recorded, and with no headers when it recorded none", () => {
    const traceparent = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
    expect(forwardedEventHeaders(anEvent({ metadata: { teamId: "team-1", traceparent } }))).toEqual({ traceparent });
    expect(forwardedEventHeaders(anEvent())).toBeUndefined();
  });

  it("never put a separator or wildcard into a subject token", () => {
    expect(forwardedEventSubject(anEvent({ streamId: "odd.cat*-1", type: "Some Type>" }))).toBe("events.odd_cat_.Some_Type_");
  });

  it("carry bigints as strings and dates as ISO, and read back to the recorded event", () => {
    const body = toForwardedEvent(anEvent());
    expect(body).toMatchObject({ revision: "12", position: "9007199254740993/4", createdAt: "2024-05-06T07:08:09.123Z" });
    expect(fromForwardedEvent(JSON.parse(JSON.stringify(body)))).toEqual(anEvent());
  });
});
