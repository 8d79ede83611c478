import { describe, expect, it } from "vitest";
import { assertValidFilter, subjectMatches, subjectPattern } from "./subject.js";

const cases: Array<[filter: string, subject: string, matches: boolean]> = [
  ["events.email.EmailQueued", "events.email.EmailQueued", true],
  ["events.email.EmailQueued", "events.email.EmailSent", false],
  ["events.email.*", "events.email.EmailSent", true],
  ["events.email.*", "events.email", false],
  ["events.email.*", "events.email.EmailSent.extra", false],
  ["events.*.EmailSent", "events.email.EmailSent", true],
  ["events.*.EmailSent", "events.contact.ContactCreated", false],
  ["events.>", "events.email.EmailSent", true],
  ["events.>", "events.email", true],
  ["events.>", "events", false],
  ["events.>", "deadletter.delivery", false],
  [">", "anything.at.all", true],
  ["*", "one", true],
  ["*", "one.two", false],
  ["*.*.>", "a.b", false],
  ["*.*.>", "a.b.c.d", true],
  ["events.e+mail.*", "events.eemail.X", false],
  ["events.e+mail.*", "events.e+mail.X", true],
  ["events.email", "events.emailx", false],
];

describe("subjectMatches", () => {
  it.each(cases)("filter %s against %s is %s", (filter, subject, matches) => {
    expect(subjectMatches(filter, subject)).toBe(matches);
  });
});

describe("subjectPattern", () => {
  it.each(cases)("agrees with subjectMatches: filter %s against %s is %s", (filter, subject, matches) => {
    expect(new RegExp(subjectPattern(filter)).test(subject)).toBe(matches);
  });
});

describe("assertValidFilter", () => {
  it("accepts wildcards in their places", () => {
    expect(() => assertValidFilter("events.*.EmailSent")).not.toThrow();
    expect(() => assertValidFilter("events.>")).not.toThrow();
  });

  it.each(["events..x", "events.>.x", "events.a*", "", "events.a b"])("rejects %j", (filter) => {
    expect(() => assertValidFilter(filter)).toThrow();
  });
});
