import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createLogger, loadConfig } from "@tidings/core";
import { createMailTransport } from "../createMailTransport.js";
import { mailTransportContract } from "../testing/contract.js";
import type { OutgoingMail } from "../port.js";
import { createOutboxTransport } from "./outboxTransport.js";

const aMail = (emailId: string, body: string): OutgoingMail => ({
  emailId,
  envelope: { from: "a@acme.test", to: ["ann@example.test", "bcc@example.test"] },
  raw: Buffer.from(`Subject: hi\r\nMessage-ID: <${emailId}@acme.test>\r\n\r\n${body}\r\n`),
  tls: "enforced",
});

mailTransportContract("outbox", async () => {
  const directory = await mkdtemp(join(tmpdir(), "tidings-outbox-contract-"));
  return {
    transport: createOutboxTransport(directory),
    recipients: ["ann@example.test", "bob@example.test"],
    arrived: (emailId) => readFile(join(directory, `${emailId}.eml`)).catch(() => undefined),
    dispose: () => rm(directory, { recursive: true, force: true }),
  };
});

describe("outbox transport", () => {
  let dataDir: string;
  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), "tidings-outbox-"));
  });
  afterAll(async () => {
    await rm(dataDir, { recursive: true, force: true });
  });

  it("writes one .eml per email id, a redelivery replacing the file, no temporary file left", async () => {
    const outbox = createOutboxTransport(join(dataDir, "outbox"));
    const first = await outbox.send(aMail("0190e7c6-aaaa", "first"));
    expect(first).toMatchObject({ kind: "delivered", code: 250 });
    expect(first.perRecipient?.map((r) => r.kind)).toEqual(["delivered", "delivered"]);
    await Promise.all([outbox.send(aMail("0190e7c6-aaaa", "again")), outbox.send(aMail("0190e7c6-bbbb", "other"))]);
    await outbox.send(aMail("0190e7c6-aaaa", "again"));

    expect((await readdir(join(dataDir, "outbox"))).sort()).toEqual(["0190e7c6-aaaa.eml", "0190e7c6-bbbb.eml"]);
    expect(await readFile(join(dataDir, "outbox", "0190e7c6-aaaa.eml"), "utf8")).toContain("\r\n\r\nagain\r\n");
    await outbox.close();
  });

  it("is what MAIL_TRANSPORT=outbox gives, writing under DATA_DIR/outbox", async () => {
    const transport = createMailTransport(loadConfig({ DATA_DIR: join(dataDir, "configured") }), createLogger("silent"));
    await transport.send(aMail("0190e7c6-cccc", "configured"));
    expect(await readdir(join(dataDir, "configured", "outbox"))).toEqual(["0190e7c6-cccc.eml"]);
  });

  it("refuses an email id that is not a plain file name", async () => {
    const outbox = createOutboxTransport(join(dataDir, "outbox"));
    await expect(outbox.send(aMail("../escape", "x"))).rejects.toThrow(/must be a file name/);
  });
});
