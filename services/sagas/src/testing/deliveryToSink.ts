import { createPrivacy } from "@tidings/privacy";
import { randomUUID } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, beforeAll, beforeEach } from "vitest";
import { createLogger, formatTimestamp, loadConfig } from "@tidings/core";
import { handleCommand } from "@tidings/commands";
import { emailDecider, emailStream, type EmailCommand, type EmailContent } from "@tidings/domain";
import type { EventStore } from "@tidings/eventstore";
import type { TestDatabase } from "@tidings/postgres";
import { suppressionsProjection } from "@tidings/projections";
import { startSmtpSink, type SmtpSink } from "@tidings/testkit";
import { startSagas, type RunningSagas } from "../startSagas.js";
import { requestLikeMetadata } from "./expectChain.js";
import { sagaPipelineForFile } from "./sagaPipeline.js";

/** The sagas of a test file sending into a loopback SMTP sink, and what its tests send and look with. */
export interface DeliveryToSink {
  teamId: string;
  /** Set in `beforeAll`, as are `store` and `sink`; the sink is reset before each test. */
  test: TestDatabase;
  store: EventStore;
  sink: SmtpSink;
  /** An email of the team to Ann, with a blind copy to an auditor, and a subject and header naming its id. */
  content(overrides?: Partial<EmailContent>): EmailContent;
  /** Sends the email as the api does, at once or at `scheduledAt`; resolves to its id. */
  send(email: EmailContent, scheduledAt?: string | null): Promise<string>;
  command(emailId: string, command: EmailCommand): Promise<unknown>;
  /** The types of the email's events, in order. */
  types(emailId: string): Promise<string[]>;
  waitForType(emailId: string, type: string, timeoutMs?: number): Promise<void>;
}

/**
 * For the test file it is called in: every saga running on a pipeline of its own (the suppressions read
 * model among its projections), sending by SMTP into a sink, and retrying deferrals after 300 ms, 600 ms,
 * then a day (so a third deferral fails the email). `settings` override the configuration.
 */
export function deliveryToSinkForFile(settings: Record<string, string> = {}): DeliveryToSink {
  const pipeline = sagaPipelineForFile({ projections: [suppressionsProjection] });
  const teamId = randomUUID();
  let sagas: RunningSagas | undefined;
  const delivery: DeliveryToSink = {
    teamId,
    content: (overrides = {}) => {
      const emailId = randomUUID();
      return {
        emailId,
        teamId,
        from: "Acme <hello@acme.test>",
        to: ["Ann <ann@example.test>"],
        cc: [],
        bcc: ["audit@example.test"],
        replyTo: [],
        subject: `Hello ${emailId}`,
        html: "<p>Hi <b>Ann</b></p>",
        text: "Hi ANN",
        headers: { "X-Entity-Ref-ID": emailId },
        tags: [],
        attachments: [],
        templateId: null,
        templateVersion: null,
        domainId: null,
        createdAt: formatTimestamp(new Date()),
        ...overrides,
      };
    },
    send: async (email, scheduledAt = null) => {
      const now = formatTimestamp(new Date());
      await delivery.command(email.emailId, { type: "SendEmail", content: email, scheduledAt, suppressed: [], now });
      return email.emailId;
    },
    command: (emailId, command) =>
      handleCommand({
        store: delivery.store,
        streamId: emailStream(emailId),
        decider: emailDecider,
        command,
        metadata: requestLikeMetadata(teamId, randomUUID()),
      }),
    types: async (emailId) => (await delivery.store.readStream(emailStream(emailId))).map((e) => e.type),
    waitForType: async (emailId, type, timeoutMs = 10_000) => {
      const deadline = Date.now() + timeoutMs;
      while (!(await delivery.types(emailId)).includes(type)) {
        if (Date.now() > deadline) throw new Error(`${type} not recorded; stream has ${(await delivery.types(emailId)).join(", ")}`);
        await sleep(50);
      }
    },
  } as DeliveryToSink;

  beforeAll(async () => {
    delivery.sink = await startSmtpSink();
    delivery.test = pipeline.test;
    delivery.store = pipeline.store;
    const config = loadConfig({
      MAIL_TRANSPORT: "smtp",
      SMTP_URL: delivery.sink.url,
      PUBLIC_URL: "https://tidings.test",
      DELIVERY_RETRY_BACKOFF_MS: "300,600,90000000",
      ...settings,
    });
    sagas = await startSagas({
      store: delivery.store,
      keys: (await createPrivacy(pipeline.test.database, "delivery-to-sink-secret-0123456789")).keys,
      database: pipeline.test.database,
      bus: pipeline.bus,
      config,
      logger: createLogger("silent"),
    });
  });
  afterAll(async () => {
    await sagas?.stop();
    await delivery.sink?.close();
  });
  beforeEach(() => delivery.sink.reset());
  return delivery;
}
