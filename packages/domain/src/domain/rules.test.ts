import { describe, expect, it } from "vitest";
import { isDomainError } from "../decider.js";
import { checkDomainSettings, normalizeDomainName, type DomainSettingsInput } from "./rules.js";
import { aDomainSettings } from "../testing/domainBuilders.js";

const settings = aDomainSettings;
/** The rule `input` breaks, if any. */
const refusal = (input: DomainSettingsInput) => {
  const checked = checkDomainSettings(input);
  return isDomainError(checked) ? checked : undefined;
};

describe("normalizeDomainName", () => {
  it("lower-cases and drops a trailing dot", () => expect(normalizeDomainName(" Mail.Example.COM. ")).toBe("mail.example.com"));

  it("stores an IDN as punycode", () => expect(normalizeDomainName("münchen.de")).toBe("xn--mnchen-3ya.de"));

  it.each([
    "",
    "localhost",
    "example",
    "-bad.com",
    "bad-.com",
    "a..b.com",
    "under_score.com",
    "1.2.3.4",
    "exa mple.com",
    "user@example.com",
    "http://example.com",
    `${"a".repeat(64)}.com`,
    `${"abc.".repeat(64)}com`,
  ])("refuses %j", (name) => expect(normalizeDomainName(name)).toBeUndefined());
});

describe("checkDomainSettings", () => {
  it("accepts the defaults", () => expect(refusal(settings())).toBeUndefined());

  it("refuses a region outside the four with invalid_region", () => {
    const error = refusal({ ...settings(), region: "us-west-2" });
    expect(error?.name).toBe("invalid_region");
    expect(error?.message).toMatch(/`region`/);
  });

  it("refuses a tls mode other than opportunistic or enforced", () =>
    expect(refusal({ ...settings(), tls: "required" })?.message).toMatch(/`tls`/));

  it("refuses a capability value other than enabled or disabled", () =>
    expect(refusal({ ...settings(), capabilities: { sending: "on", receiving: "disabled" } })?.message).toMatch(/`capabilities.sending`/));

  it("refuses both capabilities disabled", () =>
    expect(refusal(settings({ capabilities: { sending: "disabled", receiving: "disabled" } }))?.message).toMatch(
      /`capabilities`.*at least one/,
    ));

  it("accepts receiving only", () =>
    expect(refusal(settings({ capabilities: { sending: "disabled", receiving: "enabled" } }))).toBeUndefined());

  it.each(["", "a.b", "-x", "x-", "under_score", "a".repeat(64)])("refuses tracking_subdomain %j", (label) =>
    expect(refusal(settings({ trackingSubdomain: label }))?.message).toMatch(/`tracking_subdomain`/),
  );

  it.each(["", "bounces.mail", "x_y"])("refuses custom_return_path %j", (label) =>
    expect(refusal(settings({ customReturnPath: label }))?.message).toMatch(/`custom_return_path`/),
  );
});
