import { describe, expect, it } from "vitest";
import { fold } from "../decider.js";
import { given, itRefuses, now, otherTeam, teamId } from "../testing/scenario.js";
import { emailShareDecider, emailShareLinkStatus, type EmailShareCommand } from "./decider.js";
import type { EmailShareEvent } from "./events.js";

const emailId = "9d8c7b6a-5f4e-4d3c-8b2a-1f0e9d8c7b6a";
const shareId = "1a2b3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d";
const secondShareId = "2b3c4d5e-6f7a-4b8c-9d0e-1f2a3b4c5d6e";
const inTwoDays = "2026-11-25 10:00:00.000000+00";
const inAnHour = "2026-11-23 11:00:00.000000+00";
const later = "2026-11-23 12:00:00.000000+00";
const sentEmail = { teamId, source: "sent" as const };

const share = (overrides: Partial<Extract<EmailShareCommand, { type: "ShareEmail" }>> = {}): EmailShareCommand => ({
  type: "ShareEmail",
  shareId,
  emailId,
  teamId,
  email: sentEmail,
  expiresAt: inTwoDays,
  now,
  ...overrides,
});
const revoke = (overrides: Partial<Extract<EmailShareCommand, { type: "RevokeEmailShare" }>> = {}): EmailShareCommand => ({
  type: "RevokeEmailShare",
  teamId,
  email: sentEmail,
  shareId,
  now,
  ...overrides,
});

const shared = (id = shareId, expiresAt = inTwoDays): EmailShareEvent => ({
  type: "EmailShared",
  data: { shareId: id, emailId, teamId, source: "sent", sharedAt: now, expiresAt },
});
const revoked = (id = shareId, revokedAt = now): EmailShareEvent => ({
  type: "EmailShareRevoked",
  data: { shareId: id, emailId, teamId, revokedAt },
});

describe("email share decider: sharing", () => {
  it("shares a sent email until its expiry", () => given(emailShareDecider).when(share()).then([shared()]));

  it("shares a received email, naming where it came from", () =>
    given(emailShareDecider)
      .when(share({ email: { teamId, source: "received" } }))
      .then([{ type: "EmailShared", data: { shareId, emailId, teamId, source: "received", sharedAt: now, expiresAt: inTwoDays } }]));

  it("adds a second link beside the first", () =>
    given(emailShareDecider, [shared()])
      .when(share({ shareId: secondShareId }))
      .then([shared(secondShareId)]));

  it("records nothing for the same share id again (a retry)", () => given(emailShareDecider, [shared()]).when(share()).then([]));

  itRefuses(emailShareDecider, [
    ["refuses an email that does not exist", share({ email: null }), "not_found", "Email not found"],
    ["refuses another team's email as not found", share({ email: { teamId: otherTeam, source: "sent" } }), "not_found"],
    ["refuses an expiry that is not after now", share({ expiresAt: now }), "validation_error", /expires_in/],
  ]);
});

describe("email share decider: revoking", () => {
  it("revokes one link", () => given(emailShareDecider, [shared()]).when(revoke()).then([revoked()]));

  it("revokes one link and leaves the other", () =>
    given(emailShareDecider, [shared(), shared(secondShareId)])
      .when(revoke({ shareId: secondShareId }))
      .then([revoked(secondShareId)]));

  it("records nothing for a link already revoked", () => given(emailShareDecider, [shared(), revoked()]).when(revoke()).then([]));

  it("records nothing for a link that has expired anyway", () =>
    given(emailShareDecider, [shared(shareId, inAnHour)])
      .when(revoke({ now: later }))
      .then([]));

  it("revokes every link still working when no share id is given", () =>
    given(emailShareDecider, [shared(), shared(secondShareId), revoked(secondShareId)])
      .when(revoke({ shareId: null }))
      .then([revoked()]));

  it("revokes nothing, without error, for an email never shared when no share id is given", () =>
    given(emailShareDecider)
      .when(revoke({ shareId: null }))
      .then([]));

  itRefuses(
    emailShareDecider,
    [
      ["refuses a share id the email does not have", revoke({ shareId: secondShareId }), "not_found", "Share not found"],
      ["refuses another team's email as not found", revoke({ teamId: otherTeam, email: sentEmail }), "not_found", "Email not found"],
      ["refuses an email that does not exist", revoke({ email: null }), "not_found", "Email not found"],
    ],
    [shared()],
  );
});

describe("email share link status", () => {
  const state = (events: EmailShareEvent[]) => fold(emailShareDecider, events);

  it("is live before its expiry", () => expect(emailShareLinkStatus(state([shared()]), shareId, now)).toBe("live"));
  it("is expired from its expiry on", () =>
    expect(emailShareLinkStatus(state([shared(shareId, inAnHour)]), shareId, inAnHour)).toBe("expired"));
  it("is revoked once revoked, whatever its expiry", () =>
    expect(emailShareLinkStatus(state([shared(), revoked()]), shareId, now)).toBe("revoked"));
  it("is unknown for a share id the email never had", () =>
    expect(emailShareLinkStatus(state([shared()]), secondShareId, now)).toBe("unknown"));
  it("is unknown for an email never shared", () => expect(emailShareLinkStatus(state([]), shareId, now)).toBe("unknown"));
});
