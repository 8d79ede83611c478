import { describe, expect, it } from "vitest";
import { secretsSigningAt } from "./attemptDelivery.js";

const rotatedAt = Date.parse("2026-11-23T10:00:00.000Z");
const secrets = [
  { sealed: "new", validUntil: null },
  // As the rotation records it (wire format), and as the webhooks read model gives it back (ISO 8601).
  { sealed: "old", validUntil: "2026-11-24 10:00:00.000000+00" },
  { sealed: "old-iso", validUntil: "2026-11-24T10:00:00.000Z" },
];

describe("signing secrets after a rotation", () => {
  it("sign with the old secret beside the new one during the 24 h grace", () =>
    expect(secretsSigningAt(secrets, rotatedAt + 23 * 3_600_000).map((s) => s.sealed)).toEqual(["new", "old", "old-iso"]));

  it("sign with the new secret alone once the grace is over", () =>
    expect(secretsSigningAt(secrets, rotatedAt + 24 * 3_600_000 + 1).map((s) => s.sealed)).toEqual(["new"]));
});
