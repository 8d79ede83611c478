import { describe, it } from "vitest";
import { given } from "../testing/scenario.js";
import { inboundEmailDecider } from "./decider.js";
import type { InboundEmail, InboundEmailEvent } from "./events.js";

const email: InboundEmail = {
  inboundId: "3f0a7d2e-5b1c-4e8f-9a6d-2c4b6e8f0a1c",
  teamId: "5c1f3c4e-6a0b-4d2c-9e8f-1a2b3c4d5e6f",
  from: "Ann <ann@elsewhere.test>",
  to: ["support@acme.test"],
  cc: [],
  bcc: [],
  replyTo: [],
  receivedFor: ["support@acme.test"],
  mailFrom: "ann@elsewhere.test",
  messageId: "<m1@elsewhere.test>",
  subject: "Help",
  raw: { blob: "a".repeat(64), size: 512 },
  attachments: [],
  receivedAt: "2026-11-25 10:00:00.000000+00",
};
const received: InboundEmailEvent = { type: "InboundEmailReceived", data: email };

describe("inbound email decider", () => {
  it("receives a message once", () => given(inboundEmailDecider).when({ type: "ReceiveInboundEmail", email }).then([received]));
  it("records nothing for the sending server's retry of the same message", () =>
    given(inboundEmailDecider, [received]).when({ type: "ReceiveInboundEmail", email }).then([]));
});
