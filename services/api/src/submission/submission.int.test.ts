import { mkdtempSync, writeFileSync } from "node:fs";
import { connect, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import nodemailer from "nodemailer";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createLogger, loadConfig, newId } from "@tidings/core";
import { testCertificate } from "@tidings/testkit";
import { apiTestFile } from "../testing/apiTestFile.js";
import { testApiSettings, type TestKey } from "../testing/testServices.js";
import { recordVerified } from "../testing/verifiedDomain.js";
import { startSubmission } from "./startSubmission.js";
import type { SubmissionSmtpListener } from "./submissionSmtpServer.js";

/**
 * SMTP submission's replies, on the real send path (store, projections, read models, suppressions, rate
 * limit) with nodemailer as the client: each code the listener answers, and what stands behind a 250. The
 * whole product, delivery and webhooks included, is test/e2e/submission.e2e.test.ts.
 */
const MAX_BYTES = 4096;
const config = loadConfig({
  ...testApiSettings,
  SUBMISSION_SMTP_PORT: "0",
  SUBMISSION_MAX_MESSAGE_BYTES: String(MAX_BYTES),
  TIDINGS_ALLOW_UNVERIFIED_FROM: "false",
});
const file = apiTestFile("submission", config);
const logger = createLogger("silent");
let listener: SubmissionSmtpListener;
let domain: { id: string; name: string };

beforeAll(async () => {
  listener = (await startSubmission(file.testServices.services, logger, 1000))!;
  const name = `smtp-${newId().slice(0, 8)}.example.test`;
  const { body } = await file.call("POST", "/domains", { name });
  await recordVerified(file.testServices.store, body.id, body.created_at);
  domain = { id: body.id, name };
});
afterAll(() => listener?.close());

const client = (key: Pick<TestKey, "token"> | { token: string }, options: { port?: number; tls?: boolean } = {}) =>
  nodemailer.createTransport({
    host: "127.0.0.1",
    port: options.port ?? listener.port,
    secure: false,
    ignoreTLS: !options.tls,
    requireTLS: options.tls ?? false,
    tls: { rejectUnauthorized: false },
    auth: { user: "resend", pass: key.token },
  });
const failure = (promise: Promise<unknown>) =>
  promise.then(
    () => null,
    (error: { responseCode?: number; response?: string }) => error,
  );
const message = (overrides: Record<string, unknown> = {}) => ({
  from: `App <app@${domain.name}>`,
  to: "ann@example.test",
  subject: "Order shipped",
  text: "Your order is on its way.",
  ...overrides,
});
const queuedId = (response: string) => /Queued as ([0-9a-f-]{36})/.exec(response)![1]!;

describe("SMTP submission", () => {
  it("answers 250 with the email's id once it is recorded: GET /emails/:id shows it at once", async () => {
    const info = await client(file.admin).sendMail(message({ cc: "bob@example.test", bcc: "carl@example.test" }));
    expect(info.response).toMatch(/^250 2\.0\.0 Queued as /);
    const id = queuedId(info.response);
    const { status, body } = await file.call("GET", `/emails/${id}`);
    expect(status).toBe(200);
    expect(body).toMatchObject({
      id,
      from: `App <app@${domain.name}>`,
      to: ["ann@example.test"],
      cc: ["bob@example.test"],
      bcc: ["carl@example.test"],
      subject: "Order shipped",
      last_event: "queued",
    });
    const [queued] = await file.testServices.store.readStream(`email-${id}`);
    expect(queued!.data).toMatchObject({ domainId: domain.id, raw: { size: expect.any(Number) } });
  });

  it("answers 535 to a password that is no live API key", async () => {
    const refused = await failure(client({ token: "re_not_a_key" }).sendMail(message()));
    expect(refused).toMatchObject({ responseCode: 535, response: expect.stringMatching(/API key/) });
  });

  it("answers 550 with the reason to a From on a domain the team has not verified", async () => {
    const refused = await failure(client(file.admin).sendMail(message({ from: "app@nowhere.example.test" })));
    expect(refused).toMatchObject({ responseCode: 550, response: expect.stringMatching(/^550 5\.7\.1 .*nowhere\.example\.test/) });
  });

  it("answers 550 to a key restricted to another domain", async () => {
    const otherDomain = await file.call("POST", "/domains", { name: `other-${newId().slice(0, 8)}.example.test` });
    const restricted = await file.testServices.aKey("submission-team", { permission: "sending_access", domainId: otherDomain.body.id });
    const refused = await failure(client(restricted).sendMail(message()));
    expect(refused).toMatchObject({ responseCode: 550, response: expect.stringMatching(/^550 5\.7\.1 /) });
  });

  it("refuses a suppressed recipient with 550 at RCPT, naming the list", async () => {
    await file.call("POST", "/suppressions", { email: "gone@example.test" });
    const refused = await failure(client(file.admin).sendMail(message({ to: "gone@example.test" })));
    expect(refused).toMatchObject({ responseCode: 550, response: expect.stringMatching(/gone@example\.test.*suppression list/) });
  });

  it("answers 452 over the team's rate limit, before the message is sent", async () => {
    const slow = await file.testServices.aKey("submission-slow-team", { rateLimit: 1 });
    const slowDomain = `slow-${newId().slice(0, 8)}.example.test`;
    const { body } = await file.call("POST", "/domains", { name: slowDomain }, slow);
    await recordVerified(file.testServices.store, body.id, body.created_at);
    // The domain's creation took the bucket's one token, and submission draws on the same bucket: a second
    // refills it, so that exactly the sends beyond the first meet the limit.
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    const sender = client(slow);
    const results = await Promise.all([1, 2, 3].map(() => failure(sender.sendMail(message({ from: `app@${slowDomain}` })))));
    expect(results.filter((r) => r === null).length).toBeGreaterThanOrEqual(1);
    expect(results.find((r) => r !== null)).toMatchObject({
      responseCode: 452,
      response: expect.stringMatching(/^452 4\.7\.1 .*1 requests per second/),
    });
  });

  it("answers 552 to a message over SUBMISSION_MAX_MESSAGE_BYTES", async () => {
    const refused = await failure(client(file.admin).sendMail(message({ text: "x".repeat(MAX_BYTES * 2) })));
    expect(refused).toMatchObject({ responseCode: 552 });
  });

  it("records one email for a message submitted twice with the same Message-ID, and answers both with its id", async () => {
    const messageId = `<${newId()}@app.example.test>`;
    const first = await client(file.admin).sendMail(message({ messageId }));
    const second = await client(file.admin).sendMail(message({ messageId }));
    expect(queuedId(second.response)).toBe(queuedId(first.response));
    const events = await file.testServices.store.readStream(`email-${queuedId(first.response)}`);
    expect(events.filter((e) => e.type === "EmailQueued")).toHaveLength(1);
    // Another team's message with the same Message-ID is an email of its own.
    const otherDomain = `o-${newId().slice(0, 8)}.example.test`;
    const { body } = await file.call("POST", "/domains", { name: otherDomain }, file.other);
    await recordVerified(file.testServices.store, body.id, body.created_at);
    const theirs = await client(file.other).sendMail(message({ messageId, from: `app@${otherDomain}` }));
    expect(queuedId(theirs.response)).not.toBe(queuedId(first.response));
  });

  it("takes tags from the X-Tags header", async () => {
    const info = await client(file.admin).sendMail(message({ headers: { "X-Tags": "category=welcome, plan=free" } }));
    const { body } = await file.call("GET", `/emails/${queuedId(info.response)}`);
    expect(body.tags).toEqual([
      { name: "category", value: "welcome" },
      { name: "plan", value: "free" },
    ]);
    const refused = await failure(client(file.admin).sendMail(message({ headers: { "X-Tags": "not a tag" } })));
    expect(refused).toMatchObject({ responseCode: 550, response: expect.stringMatching(/X-Tags/) });
  });
});

/** A raw SMTP session on `port`: `say` sends a line (or nothing) and resolves with the next reply's last line. */
async function session(port: number) {
  const socket: Socket = connect(port, "127.0.0.1");
  let buffered = "";
  const waiting: ((line: string) => void)[] = [];
  socket.on("data", (chunk: Buffer) => {
    buffered += chunk.toString();
    for (let end = buffered.indexOf("\r\n"); end !== -1; end = buffered.indexOf("\r\n")) {
      const line = buffered.slice(0, end);
      buffered = buffered.slice(end + 2);
      if (/^\d{3} /.test(line)) waiting.shift()?.(line);
    }
  });
  const next = () => new Promise<string>((resolve) => waiting.push(resolve));
  const say = (line?: string) => {
    const reply = next();
    if (line !== undefined) socket.write(`${line}\r\n`);
    return reply;
  };
  await say();
  return { say, write: (text: string) => socket.write(text), socket };
}

describe("SMTP submission stopping", () => {
  it("answers the message under way when it is closed, and takes no new connection", async () => {
    const own = (await startSubmission(file.testServices.services, logger, 10_000))!;
    const smtp = await session(own.port);
    expect(await smtp.say("EHLO client.test")).toMatch(/^250 /);
    expect(await smtp.say(`AUTH PLAIN ${Buffer.from(`\0resend\0${file.admin.token}`).toString("base64")}`)).toMatch(/^235 /);
    expect(await smtp.say(`MAIL FROM:<app@${domain.name}>`)).toMatch(/^250 /);
    expect(await smtp.say("RCPT TO:<ann@example.test>")).toMatch(/^250 /);
    expect(await smtp.say("DATA")).toMatch(/^354 /);
    smtp.write(`From: app@${domain.name}\r\nTo: ann@example.test\r\nSubject: Stopping\r\n\r\n`);
    const closed = own.close();
    const refused = await new Promise<string>((resolve) =>
      connect(own.port, "127.0.0.1").once("error", (error: NodeJS.ErrnoException) => resolve(error.code ?? "")),
    );
    expect(refused).toBe("ECONNREFUSED");
    const reply = await smtp.say("Sent while the listener stops.\r\n.");
    expect(reply).toMatch(/^250 2\.0\.0 Queued as /);
    const { status } = await file.call("GET", `/emails/${queuedId(reply)}`);
    expect(status).toBe(200);
    await smtp.say("QUIT");
    await closed;
  });
});

describe("SMTP submission with a certificate", () => {
  let secured: SubmissionSmtpListener;
  beforeAll(async () => {
    const certificate = await testCertificate();
    const dir = mkdtempSync(join(tmpdir(), "submission-tls-"));
    writeFileSync(join(dir, "cert.pem"), certificate.cert);
    writeFileSync(join(dir, "key.pem"), certificate.key);
    const tls = { SUBMISSION_TLS_CERT: join(dir, "cert.pem"), SUBMISSION_TLS_KEY: join(dir, "key.pem"), SUBMISSION_SMTPS_PORT: "0" };
    const services = {
      ...file.testServices.services,
      config: { ...file.testServices.services.config, ...loadConfig({ ...testApiSettings, SUBMISSION_SMTP_PORT: "0", ...tls }) },
    };
    secured = (await startSubmission(services, logger, 1000))!;
  });
  afterAll(() => secured?.close());

  it("refuses AUTH before STARTTLS, and takes the message after it", async () => {
    const plain = await failure(client(file.admin, { port: secured.port }).sendMail(message()));
    expect(plain).toMatchObject({ responseCode: 538 });
    const info = await client(file.admin, { port: secured.port, tls: true }).sendMail(message());
    expect(info.response).toMatch(/^250 /);
  });

  it("takes a message over implicit TLS on the SMTPS port", async () => {
    const smtps = nodemailer.createTransport({
      host: "127.0.0.1",
      port: secured.securePort!,
      secure: true,
      tls: { rejectUnauthorized: false },
      auth: { user: "resend", pass: file.admin.token },
    });
    expect((await smtps.sendMail(message())).response).toMatch(/^250 /);
  });
});
