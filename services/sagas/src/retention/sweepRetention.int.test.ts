import { randomBytes, randomUUID } from "node:crypto";
import { Readable } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sql } from "kysely";
import { createLogger, systemClock, type Clock } from "@tidings/core";
import { createBlobStore, createStreamedBlobStore, sha256Hex, type BlobStore, type StreamedBlobStore } from "@tidings/blobs";
import { contactImportStream, emailStream, inboundEmailStream } from "@tidings/domain";
import { personalEvents } from "@tidings/domain/testing";
import type { EventStore, EventToAppend } from "@tidings/eventstore";
import { testStoreDatabase } from "@tidings/eventstore/testing";
import { testMode } from "@tidings/postgres";
import { createPrivacy, isErasedText, type Privacy } from "@tidings/privacy";
import { productProjections, startProjections, type RunningProjections } from "@tidings/projections";
import type { Retention } from "./retention.js";
import { RETENTION_SWEEP_LOCK, startRetentionSweeps } from "./retentionSweeps.js";
import { sweepRetention, type RetentionSweepDeps } from "./sweepRetention.js";

const file = testStoreDatabase({ pollIntervalMs: 50 });
const teamId = randomUUID();
const recipient = "ada.retained@example.test";
let privacy: Privacy;
let store: EventStore;
let running: RunningProjections;
let blobs: BlobStore;
let importFiles: StreamedBlobStore;

const keptForEver: Retention = { email: null, inbound: null, webhook: null, event: null, import: null, "request-log-bodies": null };
const oneSecond: Retention = { email: 1000, inbound: 1000, webhook: 1000, event: 1000, import: 1000, "request-log-bodies": 1000 };
/**
 * Past the retention and two periods (a second each, at this retention): content may outlive its retention by a
 * period, and its blobs the content by one more.
 */
const pastRetention = () => new Promise((resolve) => setTimeout(resolve, 3100));

beforeAll(async () => {
  const database = file.test.database;
  privacy = await createPrivacy(database, "retention-test-secret-0123456789abcdef", { retention: oneSecond });
  store = privacy.sealing(file.store);
  running = await startProjections({ store, database, projections: productProjections, logger: createLogger("silent") });
  blobs = createBlobStore(database);
  importFiles = createStreamedBlobStore(database);
  // The api's request log, as far as retention reads it.
  await database.exec(`CREATE TABLE api_request_logs (
    id uuid PRIMARY KEY, team_id uuid NOT NULL, created_at timestamptz NOT NULL, endpoint text NOT NULL,
    request_body json, response_body json)`);
});
afterAll(async () => {
  await running?.stop();
});

const depsFor = (retention: Retention, clock: Clock = systemClock): RetentionSweepDeps => ({
  database: file.test.database,
  store,
  keys: privacy.keys,
  importFiles,
  clock,
  retention,
});
const sweep = (retention: Retention, clock?: Clock) => sweepRetention(depsFor(retention, clock));
// The committed position, not the head: on PostgreSQL the head stops short of events committed after another
// transaction still in flight anywhere in the cluster (the e2e tier's, beside this one), so waiting for it
// could return before the later email's attachment row was projected, and the sweep took its blob.
const projected = async () => expect(await running.waitFor(await file.store.committedPosition(), 15_000)).toBe(true);
const event = (type: string, data: Record<string, unknown>): EventToAppend => ({ id: randomUUID(), type, data, metadata: { teamId } });

/** `submitted`: the message an SMTP client submitted, kept as the email's raw message. */
async function sendEmail(attachments: Buffer[], submitted?: Buffer): Promise<string> {
  const emailId = randomUUID();
  const stored = await Promise.all(attachments.map((bytes) => blobs.put(bytes)));
  const queued = personalEvents.emailQueued(teamId, emailId, {
    to: [`Ada <${recipient}>`],
    subject: "Your canary order",
    html: "<p>Hello canary</p>",
  });
  queued.data.attachments = stored.map((blob, i) => ({
    id: randomUUID(),
    filename: `canary-${i}.pdf`,
    contentType: "application/pdf",
    size: attachments[i]!.length,
    contentId: null,
    disposition: "attachment",
    blob,
  }));
  if (submitted) queued.data.raw = { blob: await blobs.put(submitted), size: submitted.length };
  await store.append(
    emailStream(emailId),
    [queued, event("EmailDelivered", { emailId, deliveredAt: new Date().toISOString(), response: "250 2.0.0 canary queued", code: 250 })],
    "no_stream",
  );
  return emailId;
}

async function receiveEmail(raw: Buffer, attachment: Buffer): Promise<string> {
  const inboundId = randomUUID();
  const [rawBlob, attachmentBlob] = [await blobs.put(raw), await blobs.put(attachment)];
  await store.append(
    inboundEmailStream(inboundId),
    [
      event("InboundEmailReceived", {
        inboundId,
        teamId,
        from: recipient,
        to: ["support@shop.example"],
        cc: [],
        bcc: [],
        replyTo: [],
        receivedFor: ["support@shop.example"],
        mailFrom: recipient,
        messageId: "<canary@example.test>",
        subject: "Re: your canary order",
        raw: { blob: rawBlob, size: raw.length },
        attachments: [
          {
            id: randomUUID(),
            filename: "canary-reply.txt",
            contentType: "text/plain",
            size: attachment.length,
            contentId: null,
            disposition: null,
            blob: attachmentBlob,
          },
        ],
        receivedAt: new Date().toISOString(),
      }),
    ],
    "no_stream",
  );
  return inboundId;
}

/** An import that has not ended, holding its file, with a row error naming the recipient. */
async function importUnderWay(): Promise<{ importId: string; sha256: string }> {
  const importId = randomUUID();
  const { sha256 } = await importFiles.putStream(Readable.from([Buffer.from(`email\n${recipient}\n${randomUUID()}\n`)]), {
    maxBytes: 1024,
  });
  const counts = { total: 1, created: 0, updated: 0, skipped: 0, failed: 1 };
  await store.append(
    contactImportStream(importId),
    [
      event("ContactImportQueued", {
        importId,
        teamId,
        file: { sha256, size: 1 },
        columnMap: { email: "email", firstName: null, lastName: null, unsubscribed: null, properties: {} },
        onConflict: "upsert",
        segmentIds: [],
        topics: [],
        createdAt: new Date().toISOString(),
      }),
      event("ContactImportStarted", { importId, startedAt: new Date().toISOString() }),
      event("ContactImportProgressed", { importId, rowsDone: 1, counts, errors: [{ line: 2, reason: `canary row for ${recipient}` }] }),
    ],
    "no_stream",
  );
  return { importId, sha256 };
}

async function logRequest(): Promise<string> {
  const id = randomUUID();
  await sql`INSERT INTO api_request_logs (id, team_id, created_at, endpoint, request_body, response_body)
    VALUES (${id}, ${teamId}, now(), '/emails', ${JSON.stringify({ html: "<p>Hello canary</p>" })}, ${JSON.stringify({ id })})`.execute(
    file.test.database.db,
  );
  return id;
}

const openedEmail = async (emailId: string) => {
  const [queued] = await store.readStream(emailStream(emailId), { maxCount: 1 });
  return queued!.data as {
    to: string[];
    subject: string;
    html: string;
    headers: Record<string, string>;
    attachments: { filename: string }[];
  };
};
const emailRow = async (emailId: string) => {
  const { rows } = await sql<{ to_addresses: string[]; subject: string; html: string; last_event: string }>`
    SELECT to_addresses, subject, html, last_event FROM emails WHERE id = ${emailId}`.execute(file.test.database.db);
  return rows[0]!;
};
const storedBlobs = async (sha256s: string[]) => {
  const { rows } = await sql<{ sha256: string }>`SELECT sha256 FROM blobs WHERE sha256 = ANY(${sha256s}::text[])`.execute(
    file.test.database.db,
  );
  return rows.map((row) => row.sha256);
};

describe(`the retention sweep (${testMode()})`, () => {
  it("expires nothing while every kind is kept for ever", async () => {
    const bytes = randomBytes(64);
    const emailId = await sendEmail([bytes]);
    await projected();
    await pastRetention();
    const swept = await sweep(keptForEver);
    expect(swept).toEqual({ keys: {}, rows: {}, blobs: 0, importsFailed: 0, requestLogBodies: 0 });
    expect(await openedEmail(emailId)).toMatchObject({ subject: "Your canary order", html: "<p>Hello canary</p>" });
    expect(await emailRow(emailId)).toMatchObject({ subject: "Your canary order" });
    expect(await storedBlobs([sha256Hex(bytes)])).toHaveLength(1);
  });

  it("once a kind's retention has passed, shreds its content and scrubs the copies, keeping addresses, statuses and events", async () => {
    const [own, shared, raw, received, submitted] = [randomBytes(64), randomBytes(64), randomBytes(64), randomBytes(64), randomBytes(64)];
    const emailId = await sendEmail([own, shared], submitted);
    const inboundId = await receiveEmail(raw, received);
    const { importId, sha256: importFile } = await importUnderWay();
    const logId = await logRequest();
    await projected();
    await pastRetention();
    // The same bytes attached to mail still kept stay for it. The sweep judges as of that mail's sending, so
    // however long projecting it takes, it is not aged past its own retention.
    const laterEmailId = await sendEmail([shared]);
    const at = new Date();
    await projected();

    const swept = await sweep(oneSecond, { now: () => at });

    expect(swept.keys).toMatchObject({ email: expect.any(Number), inbound: 1, import: 1 });
    expect(swept.keys.email).toBeGreaterThanOrEqual(1);
    expect(swept.blobs).toBeGreaterThanOrEqual(4);
    expect(swept).toMatchObject({ importsFailed: 1, requestLogBodies: 1 });

    const opened = await openedEmail(emailId);
    expect(opened.to).toEqual([`Ada <${recipient}>`]);
    for (const value of [opened.subject, opened.html, opened.attachments[0]!.filename]) expect(isErasedText(value), value).toBe(true);
    expect(opened.headers).toEqual({});
    const [, delivered] = await store.readStream(emailStream(emailId));
    expect(isErasedText((delivered!.data as { response: string }).response)).toBe(true);
    const row = await emailRow(emailId);
    expect(row).toMatchObject({ to_addresses: [`Ada <${recipient}>`], last_event: "delivered" });
    expect(isErasedText(row.subject) && isErasedText(row.html)).toBe(true);
    expect((await store.readStream(emailStream(emailId))).map((e) => e.type)).toEqual(["EmailQueued", "EmailDelivered"]);

    expect(await openedEmail(laterEmailId)).toMatchObject({ subject: "Your canary order" });
    expect(await storedBlobs([sha256Hex(own), sha256Hex(submitted), sha256Hex(raw), sha256Hex(received)])).toEqual([]);
    expect(await storedBlobs([sha256Hex(shared)])).toHaveLength(1);

    const { rows: inbound } = await sql<{ from_address: string; subject: string }>`
      SELECT from_address, subject FROM inbound_emails WHERE id = ${inboundId}`.execute(file.test.database.db);
    expect(inbound[0]!.from_address).toBe(recipient);
    expect(isErasedText(inbound[0]!.subject)).toBe(true);
    const [receivedEvent] = await store.readStream(inboundEmailStream(inboundId));
    expect(isErasedText((receivedEvent!.data as { subject: string }).subject)).toBe(true);

    const importEvents = await store.readStream(contactImportStream(importId));
    expect(importEvents.at(-1)).toMatchObject({ type: "ContactImportFailed", metadata: { actor: "saga:contact-import" } });
    const { rows: held } = await sql`SELECT 1 FROM streamed_blobs WHERE sha256 = ${importFile}`.execute(file.test.database.db);
    expect(held).toEqual([]);
    const { rows: importErrors } = await sql`SELECT 1 FROM contact_import_errors WHERE import_id = ${importId}`.execute(
      file.test.database.db,
    );
    expect(importErrors).toEqual([]);

    const { rows: logs } = await sql<{ endpoint: string; request_body: unknown; response_body: unknown }>`
      SELECT endpoint, request_body, response_body FROM api_request_logs WHERE id = ${logId}`.execute(file.test.database.db);
    expect(logs).toEqual([{ endpoint: "/emails", request_body: null, response_body: null }]);

    const again = await sweep(oneSecond, { now: () => at });
    expect(again).toMatchObject({ blobs: 0, importsFailed: 0, requestLogBodies: 0 });
    expect(Object.values(again.keys).every((n) => n === 0) && Object.values(again.rows).every((n) => n === 0)).toBe(true);
  });

  it("sweeps at start and at each interval, skipping its turn while another process holds the sweep", async () => {
    const emailId = await sendEmail([]);
    await projected();
    await pastRetention();
    const elsewhere = (await file.test.database.tryLock(RETENTION_SWEEP_LOCK))!;
    const sweeps = startRetentionSweeps(depsFor(oneSecond), 100, createLogger("silent"));
    try {
      await new Promise((resolve) => setTimeout(resolve, 400));
      expect(await openedEmail(emailId)).toMatchObject({ subject: "Your canary order" });
      await elsewhere.release();
      await expect.poll(async () => isErasedText((await emailRow(emailId)).subject), { timeout: 10_000 }).toBe(true);
    } finally {
      await sweeps.stop();
    }
  });
});
