import { describe, expect, it } from "vitest";
import { fromAll, matchesAllFilter, toEsdbFilter } from "./allFilter.js";
import { anAllEntry } from "./anEsdbEvent.js";
import type { AllStreamResolvedEvent } from "./client.js";

describe("toEsdbFilter", () => {
  it("sends event-type prefixes as an event-type filter", () => {
    expect(toEsdbFilter({ eventTypePrefix: ["Email", "Domain"] })).toMatchObject({
      filterOn: "eventType",
      prefixes: ["Email", "Domain"],
    });
  });

  it("sends categories as stream-name prefixes ending in a dash, so email does not match emailtemplate", () => {
    expect(toEsdbFilter({ streamCategory: ["email", "contact"] })).toMatchObject({
      filterOn: "streamName",
      prefixes: ["email-", "contact-"],
    });
  });

  it("excludes system events on the server when there is nothing else to filter on", () => {
    for (const filter of [undefined, { eventTypePrefix: [] }, { streamCategory: [] }]) {
      expect(toEsdbFilter(filter)).toMatchObject({ filterOn: "eventType", regex: "^[^$].*" });
    }
  });
});

describe("matchesAllFilter", () => {
  const event = { type: "EmailQueued", streamId: "email-1a2b" };

  it("matches an event type by prefix", () => {
    expect(matchesAllFilter(event, { eventTypePrefix: ["Domain", "Email"] })).toBe(true);
    expect(matchesAllFilter(event, { eventTypePrefix: ["Queued"] })).toBe(false);
  });

  it("matches the category as the part of the stream id before the first dash", () => {
    expect(matchesAllFilter(event, { streamCategory: ["email"] })).toBe(true);
    expect(matchesAllFilter(event, { streamCategory: ["emai"] })).toBe(false);
    expect(matchesAllFilter({ type: "X", streamId: "emailtemplate-1" }, { streamCategory: ["email"] })).toBe(false);
    expect(matchesAllFilter({ type: "X", streamId: "unique-t-contact-email-ab" }, { streamCategory: ["unique"] })).toBe(true);
  });

  it("matches nothing with an empty list, and everything without a filter", () => {
    expect(matchesAllFilter(event, { eventTypePrefix: [] })).toBe(false);
    expect(matchesAllFilter(event, { streamCategory: [] })).toBe(false);
    expect(matchesAllFilter(event, undefined)).toBe(true);
  });
});

describe("fromAll", () => {
  const at = (p: bigint) => ({ position: { commit: p, prepare: p } });

  it("drops the event at `after`, which EventStoreDB returns because its start is inclusive", () => {
    expect(fromAll(anAllEntry(at(500n)), { commit: 500n, prepare: 500n }, undefined)).toBeUndefined();
  });

  it("keeps an event strictly after `after`, comparing commit then prepare", () => {
    expect(fromAll(anAllEntry(at(501n)), { commit: 500n, prepare: 500n }, undefined)?.position.commit).toBe(501n);
    const samecommit = anAllEntry({ position: { commit: 500n, prepare: 501n } });
    expect(fromAll(samecommit, { commit: 500n, prepare: 500n }, undefined)).toBeDefined();
    expect(fromAll(anAllEntry(at(499n)), { commit: 500n, prepare: 500n }, undefined)).toBeUndefined();
  });

  it("keeps every event when there is no `after`", () => {
    expect(fromAll(anAllEntry(at(1n)), undefined, undefined)).toBeDefined();
  });

  it("skips system events and unresolved links", () => {
    expect(fromAll(anAllEntry({ type: "$metadata", streamId: "$$email-1" }), undefined, undefined)).toBeUndefined();
    expect(fromAll({} as AllStreamResolvedEvent, undefined, undefined)).toBeUndefined();
  });

  it("applies the filter", () => {
    expect(fromAll(anAllEntry({ streamId: "contact-1" }), undefined, { streamCategory: ["email"] })).toBeUndefined();
    expect(fromAll(anAllEntry({ streamId: "email-1" }), undefined, { streamCategory: ["email"] })).toBeDefined();
  });
});
