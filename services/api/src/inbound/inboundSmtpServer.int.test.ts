import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import nodemailer from "nodemailer";
import { afterEach, describe, expect, it } from "vitest";
import { createLogger } from "@tidings/core";
import { testCertificate } from "@tidings/testkit";
import { startInboundSmtp, type InboundSmtpListener, type InboundSmtpOptions } from "./inboundSmtpServer.js";
import type { InboundEnvelope } from "./receiveMessage.js";

/**
 * The listener's SMTP behaviour on its own, with the intake and the lookup as plain functions: what it
 * answers when they fail, and STARTTLS with a configured certificate. The whole path, intake included, is
 * test/e2e/receiving.e2e.test.ts.
 */
const team = { teamId: "5c1f3c4e-6a0b-4d2c-9e8f-1a2b3c4d5e6f", domainId: "0b6a5c4d-3e2f-4a1b-8c9d-0e1f2a3b4c5d" };
let listener: InboundSmtpListener | undefined;
afterEach(async () => {
  await listener?.close();
  listener = undefined;
});

async function start(overrides: Partial<InboundSmtpOptions>): Promise<nodemailer.Transporter> {
  listener = await startInboundSmtp({
    host: "127.0.0.1",
    port: 0,
    serverName: "inbound.tidings.test",
    maxMessageBytes: 1024 * 1024,
    feedbackDomains: ["mx.tidings.test"],
    teamsReceivingFor: async (domain) => (domain === "acme.test" ? [team] : []),
    isReturnPath: async (domain) => domain === "send.acme.test",
    intake: async () => ({ received: ["3f0a7d2e-5b1c-4e8f-9a6d-2c4b6e8f0a1c"], report: null }),
    logger: createLogger("silent"),
    ...overrides,
  });
  return nodemailer.createTransport({
    host: "127.0.0.1",
    port: listener.port,
    secure: false,
    ignoreTLS: overrides.tls === undefined,
    requireTLS: overrides.tls !== undefined,
    tls: { rejectUnauthorized: false },
  });
}

const message = { from: "ann@elsewhere.test", to: "support@acme.test", subject: "Hi", text: "Hi" };
const failure = (promise: Promise<unknown>) =>
  promise.then(
    () => null,
    (error: { responseCode?: number; response?: string }) => error,
  );

describe("inbound SMTP listener", () => {
  it("hands the intake the envelope with each recipient's teams, and answers 250 with the ids", async () => {
    const seen: InboundEnvelope[] = [];
    const client = await start({
      intake: async (envelope) => (seen.push(envelope), { received: ["3f0a7d2e-5b1c-4e8f-9a6d-2c4b6e8f0a1c"], report: null }),
    });
    const info = await client.sendMail({
      ...message,
      envelope: { from: "bounce@elsewhere.test", to: ["support@acme.test", "fbl@mx.tidings.test"] },
    });
    expect(info.response).toBe("250 2.0.0 Accepted as 3f0a7d2e-5b1c-4e8f-9a6d-2c4b6e8f0a1c");
    expect(seen).toEqual([
      {
        mailFrom: "bounce@elsewhere.test",
        recipients: [
          { address: "support@acme.test", teams: [team] },
          { address: "fbl@mx.tidings.test", teams: [] },
        ],
      },
    ]);
  });

  it("answers 451 when recording fails, so the sending server keeps the message and retries", async () => {
    const client = await start({ intake: async () => Promise.reject(new Error("event store down")) });
    expect(await failure(client.sendMail(message))).toMatchObject({ responseCode: 451 });
  });

  it("answers 451 at RCPT when the domain lookup fails, not 550: the address may well be ours", async () => {
    const client = await start({ teamsReceivingFor: async () => Promise.reject(new Error("read model down")) });
    expect(await failure(client.sendMail(message))).toMatchObject({ responseCode: 451 });
  });

  it("offers STARTTLS with the configured certificate, and takes the message over it", async () => {
    const certificate = await testCertificate();
    const dir = mkdtempSync(join(tmpdir(), "tidings-inbound-tls-"));
    writeFileSync(join(dir, "cert.pem"), certificate.cert);
    writeFileSync(join(dir, "key.pem"), certificate.key);
    // The client requires TLS: without STARTTLS on offer it gives up before MAIL FROM.
    const client = await start({ tls: { certFile: join(dir, "cert.pem"), keyFile: join(dir, "key.pem") } });
    expect((await client.sendMail(message)).response).toMatch(/^250 /);
    await listener!.close();
    const plain = await start({});
    const refused = nodemailer.createTransport({ host: "127.0.0.1", port: listener!.port, secure: false, requireTLS: true });
    expect(await failure(refused.sendMail(message))).toMatchObject({ message: expect.stringMatching(/STARTTLS/i) });
    plain.close();
  });
});
