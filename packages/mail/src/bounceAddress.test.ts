import { describe, expect, it } from "vitest";
import { bounceAddressFor, emailIdOfBounceAddress } from "./bounceAddress.js";

const emailId = "9d8c7b6a-5f4e-4d3c-8b2a-1f0e9d8c7b6a";

describe("bounce addresses", () => {
  it("name the email on the domain's return path, and are read back", () => {
    expect(bounceAddressFor(emailId, "send.acme.test")).toBe(`bounce+${emailId}@send.acme.test`);
    expect(emailIdOfBounceAddress(`BOUNCE+${emailId.toUpperCase()}@send.acme.test`)).toBe(emailId);
  });
  it("name nothing when they are not ours", () => {
    expect(emailIdOfBounceAddress("postmaster@send.acme.test")).toBeNull();
    expect(emailIdOfBounceAddress("bounce+not-an-id@send.acme.test")).toBeNull();
  });
});
