import { describe, expect, it } from "vitest";
import type { RecordedEvent } from "@tidings/eventstore";
import { MAX_NAMES_PER_EVENT, auditNames, emailAddressIn, eventTeamId } from "./auditNames.js";

const team = "11111111-1111-4111-8111-111111111111";
const email = "22222222-2222-4222-8222-222222222222";
const template = "33333333-3333-4333-8333-333333333333";
const request = "44444444-4444-4444-8444-444444444444";

const event = (data: unknown, metadata: RecordedEvent["metadata"] = {}): RecordedEvent => ({
  id: "55555555-5555-4555-8555-555555555555",
  type: "EmailQueued",
  data,
  metadata,
  streamId: `email-${email}`,
  revision: 0n,
  position: { commit: 1n, prepare: 1n },
  createdAt: new Date(0),
});

describe("auditNames", () => {
  it("names the stream's id, the metadata's ids, and the uuids and addresses of the data, each once", () => {
    const names = auditNames(
      event(
        {
          emailId: email,
          teamId: team,
          to: ["Ada <Ada@Example.com>", "bob@example.com"],
          templateId: template.toUpperCase(),
          html: "<p>x@y.com</p>",
        },
        { teamId: team, requestId: request, correlationId: request, causationId: request },
      ),
      team,
      true,
    );
    expect(names).toEqual([
      { key: email, kind: "stream" },
      { key: request, kind: "request" },
      { key: "ada@example.com", kind: "email" },
      { key: "bob@example.com", kind: "email" },
      { key: template, kind: "id" },
    ]);
  });

  it("leaves addresses out when told to, and never names the owning team", () => {
    const names = auditNames(event({ email: "ada@example.com", teamId: team }), team, false);
    expect(names).toEqual([{ key: email, kind: "stream" }]);
  });

  it("walks the data to a bounded depth and keeps a bounded number of names", () => {
    const deep = { a: { b: { c: { d: { e: template } } } } };
    expect(auditNames(event(deep), undefined, true).map((n) => n.key)).not.toContain(template);
    const many = Array.from({ length: 100 }, (_, i) => `x${i}@example.com`);
    expect(auditNames(event({ to: many }), undefined, true)).toHaveLength(MAX_NAMES_PER_EVENT);
  });
});

describe("emailAddressIn", () => {
  it("takes whole values only: an address or a mailbox, lowercased", () => {
    expect(emailAddressIn("Ada Lovelace <Ada@Example.COM>")).toBe("ada@example.com");
    expect(emailAddressIn("write to ada@example.com")).toBeUndefined();
    expect(emailAddressIn("not an address")).toBeUndefined();
  });
});

describe("eventTeamId", () => {
  it("reads the metadata's team, else the data's", () => {
    expect(eventTeamId(event({}, { teamId: team }))).toBe(team);
    expect(eventTeamId(event({ teamId: team }))).toBe(team);
    expect(eventTeamId(event({}))).toBeUndefined();
  });
});
