import { describe, expect, it } from "vitest";
import { toEsdbExpectedRevision, toEsdbReadRevision } from "./revisions.js";

describe("toEsdbExpectedRevision", () => {
  it("maps each named expectation to the client's constant", () => {
    expect(toEsdbExpectedRevision("any")).toBe("any");
    expect(toEsdbExpectedRevision("no_stream")).toBe("no_stream");
    expect(toEsdbExpectedRevision("stream_exists")).toBe("stream_exists");
  });

  it("passes an exact revision through, including 0", () => {
    expect(toEsdbExpectedRevision(0n)).toBe(0n);
    expect(toEsdbExpectedRevision(41n)).toBe(41n);
  });
});

describe("toEsdbReadRevision", () => {
  it("starts a forwards read at the start and a backwards read at the end by default", () => {
    expect(toEsdbReadRevision(undefined, "forwards")).toBe("start");
    expect(toEsdbReadRevision(undefined, "backwards")).toBe("end");
  });

  it("keeps an explicit start, end or revision whatever the direction", () => {
    expect(toEsdbReadRevision("start", "backwards")).toBe("start");
    expect(toEsdbReadRevision("end", "forwards")).toBe("end");
    expect(toEsdbReadRevision(7n, "backwards")).toBe(7n);
  });
});
