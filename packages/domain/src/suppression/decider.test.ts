import { describe, expect, it } from "vitest";
import { given, now, teamId } from "../testing/scenario.js";
import { suppressionDecider } from "./decider.js";
import { suppressionReason, type SuppressionEvent } from "./events.js";

const suppressionId = "00000000-0000-4000-8000-000000000002";
const add = (email = "Gone@Example.com") => ({
  type: "AddSuppression" as const,
  suppressionId,
  teamId,
  email,
  origin: "manual" as const,
  sourceId: null,
  now,
});
const remove = (listed: boolean) => ({ type: "RemoveSuppression" as const, suppressionId, teamId, email: "gone@example.com", listed, now });
const added: SuppressionEvent = {
  type: "SuppressionAdded",
  data: { suppressionId, teamId, email: "gone@example.com", origin: "manual", sourceId: null, createdAt: now },
};
const removed: SuppressionEvent = {
  type: "SuppressionRemoved",
  data: { suppressionId, teamId, email: "gone@example.com", removedAt: now },
};

describe("suppression decider", () => {
  it("adds an address, lower-cased, once", () => {
    given(suppressionDecider).when(add()).then([added]);
    given(suppressionDecider, [added]).when(add()).then([]);
  });
  it("refuses a malformed address", () => {
    given(suppressionDecider)
      .when(add("nobody"))
      .thenError("validation_error", /`email`/);
    given(suppressionDecider)
      .when(add(""))
      .thenError("missing_required_field", /`email`/);
  });
  it("removes an address it added, or one the list shows from a bounce", () => {
    given(suppressionDecider, [added]).when(remove(false)).then([removed]);
    given(suppressionDecider).when(remove(true)).then([removed]);
    given(suppressionDecider, [added, removed]).when(remove(true)).then([removed]);
  });
  it("does not find an address that is not suppressed", () => {
    given(suppressionDecider).when(remove(false)).thenError("not_found", "Suppression not found");
    given(suppressionDecider, [added, removed]).when(remove(false)).thenError("not_found");
    given(suppressionDecider, [added])
      .when({ ...remove(false), teamId: suppressionId })
      .thenError("not_found");
    given(suppressionDecider)
      .when({ ...remove(false), email: suppressionId })
      .thenError("not_found");
  });
  it("adds again after a removal", () => {
    given(suppressionDecider, [added, removed]).when(add()).then([added]);
  });
});

describe("suppression reasons", () => {
  it("says a bounce before a complaint, and nothing for a manual entry", () => {
    expect(
      suppressionReason([
        { email: "a@x.test", origin: "complaint" },
        { email: "b@x.test", origin: "bounce" },
      ]),
    ).toBe("previous_bounce");
    expect(
      suppressionReason([
        { email: "a@x.test", origin: "complaint" },
        { email: "b@x.test", origin: "manual" },
      ]),
    ).toBe("previous_complaint");
    expect(suppressionReason([{ email: "a@x.test", origin: "manual" }])).toBeNull();
  });
});
