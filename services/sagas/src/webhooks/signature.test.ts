import { describe, expect, it } from "vitest";
import { Webhook } from "standardwebhooks";
import { webhookHeaders } from "./signature.js";

const secretA = `whsec_${Buffer.from("a".repeat(32)).toString("base64")}`;
const secretB = `whsec_${Buffer.from("b".repeat(32)).toString("base64")}`;
const body = JSON.stringify({ type: "email.sent", created_at: "2026-11-23T10:00:00.000Z", data: { email_id: "x" } });

const verify = (secret: string, headers: Record<string, string>) =>
  new Webhook(secret).verify(body, {
    "webhook-id": headers["svix-id"]!,
    "webhook-timestamp": headers["svix-timestamp"]!,
    "webhook-signature": headers["svix-signature"]!,
  });

describe("webhook signatures", () => {
  it("verify with the Standard Webhooks library the SDK uses", () => {
    const headers = webhookHeaders([secretA], "msg_1", Math.floor(Date.now() / 1000), body);
    expect(verify(secretA, headers)).toEqual(JSON.parse(body));
    expect(headers["webhook-signature"]).toBe(headers["svix-signature"]);
    expect(() => verify(secretB, headers)).toThrow();
  });

  it("carry one signature per secret during a rotation's grace, each verifying", () => {
    const headers = webhookHeaders([secretB, secretA], "msg_1", Math.floor(Date.now() / 1000), body);
    expect(headers["svix-signature"]!.split(" ")).toHaveLength(2);
    expect(verify(secretA, headers)).toEqual(JSON.parse(body));
    expect(verify(secretB, headers)).toEqual(JSON.parse(body));
  });
});
