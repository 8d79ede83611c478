import { describe, expect, it } from "vitest";
import { isDomainError } from "../../decider.js";
import type { LiveDomain } from "../../domain/decider.js";
import { aDomainSettings } from "../../testing/domainBuilders.js";
import { checkSendingDomain, sendingDomainName, type SendingDomainCheck } from "./sendingDomain.js";

const teamId = "5c1f3c4e-6a0b-4d2c-9e8f-1a2b3c4d5e6f";
const domainId = "9d8c7b6a-5f4e-4d3c-8b2a-1f0e9d8c7b6a";

/** The fields of a live domain the rule reads; the rest of the record does not take part. */
const aLiveDomain = (overrides: Partial<LiveDomain> = {}): LiveDomain =>
  ({ status: "active", domainId, teamId, name: "acme.test", settings: aDomainSettings(), sendable: true, ...overrides }) as LiveDomain;

const check = (overrides: Partial<SendingDomainCheck> = {}) =>
  checkSendingDomain({ name: "acme.test", holder: aLiveDomain(), teamId, allowUnverified: false, restrictedTo: null, ...overrides });
const refusal = (result: ReturnType<typeof checkSendingDomain>) => (isDomainError(result) ? result.message : undefined);

describe("the sending domain of a from", () => {
  it("is the from's domain lower-cased, an IDN as punycode", () => {
    expect(sendingDomainName("Ann <ann@Acme.TEST>")).toBe("acme.test");
    expect(sendingDomainName("a@bücher.example")).toBe("xn--bcher-kva.example");
  });

  it("lets a verified domain of the team with sending enabled through, naming it", () => expect(check()).toEqual({ domainId }));

  it("refuses a domain that is not verified, unless unverified sends are allowed", () => {
    const unverified = aLiveDomain({ sendable: false });
    expect(refusal(check({ holder: unverified }))).toBe(
      "The `acme.test` domain is not verified. Add and verify it before sending from it.",
    );
    expect(check({ holder: unverified, allowUnverified: true })).toEqual({ domainId });
  });

  it("refuses a domain with sending disabled even when unverified sends are allowed", () => {
    const disabled = aLiveDomain({ settings: aDomainSettings({ capabilities: { sending: "disabled", receiving: "enabled" } }) });
    expect(refusal(check({ holder: disabled, allowUnverified: true }))).toMatch(/has sending disabled/);
  });

  it("treats another team's domain as none of this team's", () => {
    const theirs = aLiveDomain({ teamId: "0f0f0f0f-0f0f-4f0f-8f0f-0f0f0f0f0f0f" });
    expect(refusal(check({ holder: theirs }))).toMatch(/is not verified/);
    expect(check({ holder: theirs, allowUnverified: true })).toEqual({ domainId: null });
  });

  it("keeps a restricted key to its own domain", () => {
    expect(check({ restrictedTo: domainId })).toEqual({ domainId });
    expect(refusal(check({ restrictedTo: "1e1e1e1e-1e1e-4e1e-8e1e-1e1e1e1e1e1e" }))).toMatch(
      /may only send from the domain it is restricted to/,
    );
    expect(refusal(check({ holder: undefined, allowUnverified: true, restrictedTo: domainId }))).toMatch(/restricted to/);
  });
});
