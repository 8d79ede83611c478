import { describe, expect, it } from "vitest";
import { summarizeOutcome } from "./deliveryOutcome.js";
import { outcomeOfSmtpError, type SmtpError } from "./smtpReply.js";

const smtpError = (fields: Partial<SmtpError>) => Object.assign(new Error(fields.message ?? "failed"), fields);

describe("outcomeOfSmtpError", () => {
  it("defers on 4xx and on a connection that failed, bounces on 5xx", () => {
    expect(outcomeOfSmtpError(smtpError({ responseCode: 451, response: "451 try later" }), "opportunistic")).toEqual({
      kind: "deferred",
      code: 451,
      response: "451 try later",
    });
    expect(outcomeOfSmtpError(smtpError({ code: "ECONNECTION", message: "connect ECONNREFUSED" }), "opportunistic")).toEqual({
      kind: "deferred",
      response: "connect ECONNREFUSED",
    });
    expect(outcomeOfSmtpError(smtpError({ responseCode: 550, response: "550 no such user" }), "opportunistic")).toEqual({
      kind: "bounced",
      code: 550,
      response: "550 no such user",
    });
  });

  it("never bounces on our own authentication failure, which would suppress the recipient", () => {
    expect(
      outcomeOfSmtpError(smtpError({ code: "EAUTH", responseCode: 535, response: "535 bad credentials" }), "opportunistic"),
    ).toMatchObject({ kind: "deferred", code: 535 });
  });

  it("fails with a reason when enforced TLS is refused, and only then", () => {
    const refused = smtpError({ code: "ETLS", command: "STARTTLS", responseCode: 502, response: "502 not implemented" });
    expect(outcomeOfSmtpError(refused, "enforced")).toEqual({
      kind: "failed",
      response: "TLS required by the domain but not offered (502 not implemented)",
    });
    expect(outcomeOfSmtpError(smtpError({ code: "ESOCKET", message: "self-signed certificate" }), "enforced")).toMatchObject({
      kind: "failed",
    });
    expect(outcomeOfSmtpError(smtpError({ code: "ESOCKET", message: "self-signed certificate" }), "opportunistic")).toMatchObject({
      kind: "deferred",
    });
    expect(outcomeOfSmtpError(smtpError({ code: "ETLS", message: "handshake" }), "opportunistic")).toMatchObject({ kind: "deferred" });
  });
});

describe("summarizeOutcome", () => {
  const r = (recipient: string, kind: "delivered" | "deferred" | "bounced" | "failed") => ({ recipient, kind, response: kind });

  it("defers while any recipient is deferred, so a retry can go to those alone", () => {
    expect(summarizeOutcome([r("a", "delivered"), r("b", "deferred"), r("c", "bounced")]).kind).toBe("deferred");
  });

  it("is delivered when some were delivered and the rest bounced, failed when none got it and one failed", () => {
    expect(summarizeOutcome([r("a", "bounced"), r("b", "delivered")])).toMatchObject({ kind: "delivered", response: "delivered" });
    expect(summarizeOutcome([r("a", "bounced"), r("b", "failed")]).kind).toBe("failed");
    expect(summarizeOutcome([r("a", "bounced")]).kind).toBe("bounced");
  });
});
