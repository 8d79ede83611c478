import { randomUUID } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import { createLogger, systemClock } from "@tidings/core";
import { createContact, createContactProperty, createSegment, enqueueContactImport, findContact } from "@tidings/audience";
import { BlobNotFoundError, createStreamedBlobStore, type StreamedBlobStore } from "@tidings/blobs";
import {
  contactImportDecider,
  contactImportStream,
  fold,
  type ColumnMap,
  type ContactImportEvent,
  type ContactImportState,
  type OnConflict,
} from "@tidings/domain";
import type { EventStore } from "@tidings/eventstore";
import { testStoreDatabase } from "@tidings/eventstore/testing";
import { settledWrites } from "@tidings/postgres";
import { runContactImport, type ContactImportDeps } from "./contactImports.js";
import { expectChain, requestLikeMetadata } from "../testing/expectChain.js";

const logger = createLogger("silent");
const metadata = { actor: "test" };

const file = testStoreDatabase();
let store: EventStore;
let blobs: StreamedBlobStore;

beforeAll(() => {
  store = file.store;
  blobs = createStreamedBlobStore(file.test.database);
});

const deps = (overrides: Partial<ContactImportDeps> = {}): ContactImportDeps => ({
  store,
  blobs,
  clock: systemClock,
  logger,
  checkpointRows: 7,
  rowsInFlight: 4,
  ...overrides,
});

async function* text(content: string) {
  // Small pieces, so records straddle chunk boundaries as they would in a large upload.
  for (let i = 0; i < content.length; i += 97) yield Buffer.from(content.slice(i, i + 97));
}

async function queueImport(
  teamId: string,
  csv: string,
  options: { onConflict: OnConflict; columnMap?: Partial<ColumnMap>; segmentIds?: string[] },
) {
  const file = await blobs.putStream(text(csv), { maxBytes: 10_000_000 });
  const importId = randomUUID();
  const columnMap: ColumnMap = {
    email: "Email",
    firstName: "First name",
    lastName: null,
    unsubscribed: null,
    properties: { seats: "Seats" },
    ...options.columnMap,
  };
  const request = { importId, teamId, file, columnMap, onConflict: options.onConflict, segmentIds: options.segmentIds ?? [], topics: [] };
  const requestId = randomUUID();
  requestOf.set(importId, requestId);
  await enqueueContactImport({ store, clock: systemClock }, request, requestLikeMetadata(teamId, requestId));
  return importId;
}

/** The request that queued each import, as its ContactImportQueued says. */
const requestOf = new Map<string, string>();

const importState = async (importId: string): Promise<ContactImportState> =>
  fold(
    contactImportDecider,
    (await store.readStream(contactImportStream(importId))).map((e) => ({ type: e.type, data: e.data }) as ContactImportEvent),
  );

/** How many ContactCreated events each address of the team has: more than one would be a duplicate contact. */
async function createdPerEmail(teamId: string): Promise<Map<string, number>> {
  const counts = new Map<string, number>();
  await settledWrites(file.test.database);
  // Page through $all: a read returns at most one batch.
  for (
    let page = await store.readAll({ filter: { eventTypePrefix: ["ContactCreated"] } });
    page.length > 0;
    page = await store.readAll({ after: page.at(-1)!.position, filter: { eventTypePrefix: ["ContactCreated"] } })
  ) {
    for (const event of page) {
      const data = event.data as { teamId: string; email: string };
      if (data.teamId === teamId) counts.set(data.email, (counts.get(data.email) ?? 0) + 1);
    }
  }
  return counts;
}

/**
 * 40 good rows, 5 rows repeating earlier addresses (one in different case), one address that exists before
 * the import, and 4 bad rows: a malformed address, a missing one, and two wrong-typed `Seats`.
 */
function generatedCsv(prefix: string): { csv: string; badLines: { line: number; reason: string }[] } {
  const lines = ["Email,First name,Seats"];
  const badLines: { line: number; reason: string }[] = [];
  for (let i = 0; i < 40; i++) lines.push(`${prefix}-${i}@example.com,Person ${i},${i}`);
  for (let i = 0; i < 5; i++) lines.push(`${i === 0 ? `${prefix}-${i}@EXAMPLE.com` : `${prefix}-${i}@example.com`},Again ${i},${100 + i}`);
  lines.push(`${prefix}-existing@example.com,Existing,7`);
  const bad = [
    [`not-an-address,Nobody,1`, "invalid email `not-an-address`"],
    [`,Nobody,1`, "missing email"],
    [`${prefix}-typed@example.com,Typed,many`, "property `seats` must be a number, not `many`"],
    [`"${prefix}-quoted@example.com","Quoted, Name",1.5x`, "property `seats` must be a number, not `1.5x`"],
  ];
  for (const [row, reason] of bad) {
    lines.push(row!);
    badLines.push({ line: lines.length, reason: reason! });
  }
  return { csv: lines.join("\r\n") + "\r\n", badLines };
}

/** Every address the import created once: 41 of them, a repeated row updating its contact rather than making another. */
async function expectEachCreatedOnce(teamId: string) {
  const created = await createdPerEmail(teamId);
  expect(created.size).toBe(41);
  expect([...created.values()].every((n) => n === 1)).toBe(true);
}

/** Runs again an import cut short (upserting a `generatedCsv`), which then ends with the counts of one whole run. */
async function expectResumedToTheEnd(teamId: string, importId: string, badLines: { line: number; reason: string }[]) {
  await runContactImport(deps(), importId);
  expect(await importState(importId)).toMatchObject({
    status: "completed",
    counts: { total: 50, created: 41, updated: 5, skipped: 0, failed: 4 },
    errors: badLines,
  });
  await expectEachCreatedOnce(teamId);
}

/** The store, each of whose writes (one event or many) is first shown to `beforeWrite`, which may throw. */
const watchingWrites = (beforeWrite: () => void): EventStore => ({
  ...store,
  append: (...args) => (beforeWrite(), store.append(...args)),
  appendMany: (...args) => (beforeWrite(), store.appendMany(...args)),
});

async function aTeam() {
  const teamId = randomUUID();
  const d = { store, clock: systemClock };
  await createContactProperty(d, teamId, { key: "seats", type: "number", fallbackValue: null }, metadata);
  const fields = { firstName: "Before", lastName: null, unsubscribed: false };
  return { teamId, d, fields };
}

describe("contact import saga", () => {
  it("upserts: exact counts and row errors, the existing contact updated, duplicates in the file updated once more", async () => {
    const { teamId, d, fields } = await aTeam();
    const { csv, badLines } = generatedCsv("up");
    await createContact(d, teamId, { email: "up-existing@example.com", fields, properties: {}, segmentIds: [], topics: [] }, metadata);
    const segment = await createSegment(d, teamId, "Imported", metadata);
    const importId = await queueImport(teamId, csv, { onConflict: "upsert", segmentIds: [segment.id] });
    await runContactImport(deps(), importId);

    const state = await importState(importId);
    expect(state).toMatchObject({
      status: "completed",
      counts: { total: 50, created: 40, updated: 6, skipped: 0, failed: 4 },
      errors: badLines,
    });
    const existing = await findContact(store, teamId, "up-existing@example.com");
    expect(existing).toMatchObject({ firstName: "Existing", properties: { seats: 7 }, segmentIds: [segment.id] });
    expect(await findContact(store, teamId, "up-0@example.com")).toMatchObject({
      firstName: "Again 0",
      properties: { seats: 100 },
      segmentIds: [segment.id],
    });
    await expectEachCreatedOnce(teamId);
    // The run's events and the contacts it wrote are in the chain of the request that queued it, caused by its queuing.
    const [queued, ...ran] = await store.readStream(contactImportStream(importId));
    const chain = { actor: "saga:contact-import", teamId, correlationId: requestOf.get(importId)! };
    expectChain(ran, { ...chain, causes: ran.map(() => queued!.id) });
    const written = (await store.readAll({ filter: { streamCategory: ["contact"] } })).filter((e) => e.metadata.actor === chain.actor);
    const ofThisImport = written.filter((e) => e.metadata.teamId === teamId);
    expect(ofThisImport.length).toBeGreaterThanOrEqual(46);
    expectChain(ofThisImport, { ...chain, causes: ofThisImport.map(() => queued!.id) });
  });

  it("skips: existing contacts and repeated addresses are left as they were", async () => {
    const { teamId, d, fields } = await aTeam();
    const { csv } = generatedCsv("skip");
    await createContact(d, teamId, { email: "skip-existing@example.com", fields, properties: {}, segmentIds: [], topics: [] }, metadata);
    const importId = await queueImport(teamId, csv, { onConflict: "skip" });
    await runContactImport(deps(), importId);
    expect(await importState(importId)).toMatchObject({
      status: "completed",
      counts: { total: 50, created: 40, updated: 0, skipped: 6, failed: 4 },
    });
    expect(await findContact(store, teamId, "skip-existing@example.com")).toMatchObject({ firstName: "Before", properties: {} });
    expect(await findContact(store, teamId, "skip-1@example.com")).toMatchObject({ firstName: "Person 1", properties: { seats: 1 } });
  });

  it("resumes after a crash mid-import: no duplicate contact, no double count", async () => {
    const { teamId } = await aTeam();
    const { csv, badLines } = generatedCsv("crash");
    const importId = await queueImport(teamId, csv, { onConflict: "upsert" });
    // The process dies at its 60th write: past a few checkpoints, in the middle of a row.
    let appends = 0;
    const dying = watchingWrites(() => {
      // Every write from then on fails too, as in a killed process: rows under way beside it are cut short.
      if (++appends >= 60) throw new Error("process killed");
    });
    await expect(runContactImport(deps({ store: dying }), importId)).rejects.toThrow("process killed");
    const interrupted = await importState(importId);
    expect(interrupted.status).toBe("in_progress");
    expect(interrupted.status !== "none" && interrupted.rowsDone).toBeGreaterThan(0);

    await expectResumedToTheEnd(teamId, importId, badLines);
    // A finished import run again does nothing.
    await runContactImport(deps(), importId);
    expect((await importState(importId)).status).toBe("completed");
  });

  it("stops when its consumer stops: the rows it took are checkpointed, and the next run does the rest once", async () => {
    const { teamId } = await aTeam();
    const { csv, badLines } = generatedCsv("stop");
    const importId = await queueImport(teamId, csv, { onConflict: "upsert" });
    // The consumer stops (SIGTERM) at the 20th write, mid-file; the writes themselves go on.
    const stopping = new AbortController();
    let appends = 0;
    const counting = watchingWrites(() => ++appends === 20 && stopping.abort());
    await expect(runContactImport(deps({ store: counting }), importId, stopping.signal)).rejects.toThrow(/abort/i);
    const stopped = await importState(importId);
    if (stopped.status !== "in_progress") throw new Error(`expected the import in progress, not ${stopped.status}`);
    expect(stopped.rowsDone).toBeGreaterThan(0);
    expect(stopped.rowsDone).toBeLessThan(50);
    expect(stopped.counts.total).toBe(stopped.rowsDone);

    await expectResumedToTheEnd(teamId, importId, badLines);
  });

  it("fails an import whose file has no email column", async () => {
    const { teamId } = await aTeam();
    const importId = await queueImport(teamId, "Mail,Name\na@example.com,A\n", { onConflict: "upsert" });
    await runContactImport(deps(), importId);
    const events = (await store.readStream(contactImportStream(importId))).map((e) => e.type);
    expect(events).toEqual(["ContactImportQueued", "ContactImportStarted", "ContactImportFailed"]);
    await expect(fileOf(importId)).rejects.toBeInstanceOf(BlobNotFoundError);
  });

  it("deletes its file once it ends, not while another import of the same bytes still needs it, and a rerun deletes nothing", async () => {
    const { teamId } = await aTeam();
    const csv = "Email,First name,Seats\nshared-file@example.com,Shared,1\n";
    const [first, second] = [
      await queueImport(teamId, csv, { onConflict: "upsert" }),
      await queueImport(teamId, csv, { onConflict: "upsert" }),
    ];
    await runContactImport(deps(), first);
    await runContactImport(deps(), first);
    expect(await fileOf(second)).toContain("shared-file@example.com");
    await runContactImport(deps(), second);
    expect((await importState(second)).status).toBe("completed");
    await expect(fileOf(second)).rejects.toBeInstanceOf(BlobNotFoundError);
  });
});

/** The import's file as the blob store holds it. */
async function fileOf(importId: string): Promise<string> {
  const [queued] = await store.readStream(contactImportStream(importId), { maxCount: 1 });
  const parts: Buffer[] = [];
  for await (const part of blobs.readStream((queued!.data as { file: { sha256: string } }).file.sha256)) parts.push(part);
  return Buffer.concat(parts).toString();
}
