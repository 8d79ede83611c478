import { describe, expect, it } from "vitest";
import { bounceAddresses } from "./bounceAddress.js";

const emailId = "9d8c7b6a-5f4e-4d3c-8b2a-1f0e9d8c7b6a";
const ours = bounceAddresses("s".repeat(32));

describe("bounce addresses", () => {
  it("name the email on the domain's return path, and are read back whatever their case", () => {
    const address = ours.for(emailId, "send.acme.test");
    expect(address).toMatch(new RegExp(`^bounce\\+${emailId}\\.[0-9a-f]{16}@send\\.acme\\.test$`));
    expect(ours.emailIdOf(address.toUpperCase())).toBe(emailId);
  });
  it("name nothing when they are not ours: another secret's, a forged tag, or no tag", () => {
    expect(ours.emailIdOf(bounceAddresses("t".repeat(32)).for(emailId, "send.acme.test"))).toBeNull();
    expect(ours.emailIdOf(`bounce+${emailId}.0123456789abcdef@send.acme.test`)).toBeNull();
    expect(ours.emailIdOf(`bounce+${emailId}@send.acme.test`)).toBeNull();
    expect(ours.emailIdOf("postmaster@send.acme.test")).toBeNull();
  });
});
