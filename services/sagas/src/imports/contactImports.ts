import { Readable } from "node:stream";
import { parse } from "csv-parse";
import { deterministicId, formatTimestamp, TidingsError, type Clock, type Counter, type Logger } from "@tidings/core";
import { DomainRejection, loadState } from "@tidings/commands";
import {
  addContactToSegment,
  contactPropertyTypes,
  createContact,
  findContact,
  updateContact,
  updateContactTopics,
} from "@tidings/audience";
import type { StreamedBlobStore } from "@tidings/blobs";
import type { Bus, Consumer } from "@tidings/bus";
import {
  contactImportDecider,
  contactImportStream,
  normalContactEmail,
  readImportRow,
  type ContactImportRecord,
  type CsvRecord,
  type ImportCounts,
  type ImportedRow,
  type LiveContact,
  type ImportRowError,
  type PropertyTypes,
} from "@tidings/domain";
import type { EventMetadata, EventStore } from "@tidings/eventstore";
import { contactImportDurable } from "../durables.js";
import { consumeLongWork } from "../heldMessages.js";
import { holdStream } from "../heldStream.js";
import { OrderedWindow, unwrap, type Settled } from "./orderedWindow.js";
import { reactingTo, sagaMetadata } from "../sagaMetadata.js";

export interface ContactImportDeps {
  store: EventStore;
  blobs: StreamedBlobStore;
  clock: Clock;
  logger: Logger;
  /** Rows between two checkpoints: what a restarted import may have to do again, never count again. */
  checkpointRows: number;
  /** Rows under way at once: their appends share the event store's round trips. */
  rowsInFlight: number;
  /** Counts rows by outcome as they are tallied (default: nowhere); a restarted run counts its rows again. */
  rowsCounted?: Counter<"outcome">;
}

type RowOutcome = { kind: "created" | "updated" | "skipped" } | { kind: "failed"; reason: string };
type RowDone = { line: number; outcome: RowOutcome };

/** The file is not one the import can read at all: the whole import fails, with this reason. */
class UnreadableFile extends Error {}

/**
 * One row, applied by the API's own rules. The contact a row creates has an id derived from the import
 * and the row, so a run restarted after a crash finds the contacts it created itself and counts them as
 * created again (its count was not checkpointed), never as updated.
 */
async function importRow(
  deps: ContactImportDeps,
  job: ContactImportRecord,
  types: PropertyTypes,
  row: number,
  read: ImportedRow,
  metadata: EventMetadata,
): Promise<RowOutcome> {
  if (!read.ok) return { kind: "failed", reason: read.reason };
  const { teamId } = job;
  const contactId = deterministicId("contact-import", job.importId, String(row));
  try {
    // Most rows name a new email: creating first, and looking the contact up only when the email is taken,
    // writes a new contact without a read.
    let existing: LiveContact | undefined;
    try {
      const fields = { firstName: null, lastName: null, unsubscribed: false, ...read.fields };
      await createContact(
        deps,
        teamId,
        { email: read.email, fields, properties: read.properties, segmentIds: job.segmentIds, topics: job.topics, propertyTypes: types },
        metadata,
        contactId,
      );
      return { kind: "created" };
    } catch (error) {
      if (!(error instanceof TidingsError && error.code === "contact_exists")) throw error;
      existing = await findContact(deps.store, teamId, read.email);
      if (!existing) throw error;
    }
    if (job.onConflict === "skip") return { kind: "skipped" };
    await updateContact(deps, teamId, existing.contactId, read.fields, read.properties, metadata, types);
    for (const segmentId of job.segmentIds) await addContactToSegment(deps, teamId, existing.contactId, segmentId, metadata);
    if (job.topics.length > 0) await updateContactTopics(deps, teamId, existing.contactId, job.topics, metadata);
    return { kind: "updated" };
  } catch (error) {
    // A rule the row broke (a segment deleted since the upload, say) fails the row, not the import.
    if (error instanceof DomainRejection) return { kind: "failed", reason: error.error.message };
    if (error instanceof TidingsError && error.code !== "application_error") return { kind: "failed", reason: error.message };
    throw error;
  }
}

/**
 * Runs an import from its last checkpoint to the end: the file is streamed from the blob store through a
 * CSV parser, never held whole. Safe to run again at any point (a redelivery, another sagas process, a
 * restart): rows before the checkpoint are skipped, those after it are applied idempotently. Once
 * `stopping` is aborted it reads no more rows, checkpoints those in flight, and throws its reason.
 */
export async function runContactImport(deps: ContactImportDeps, importId: string, stopping?: AbortSignal): Promise<void> {
  const stream = contactImportStream(importId);
  const job = await loadState(deps.store, stream, contactImportDecider);
  if (job.status === "none" || job.status === "completed" || job.status === "failed") return;
  // Every write of the run, rows and checkpoints, is caused by the ContactImportQueued, in its request's chain.
  const [queued] = await deps.store.readStream(stream, { maxCount: 1 });
  const chain = reactingTo(queued!);
  const metadata = () => sagaMetadata(deps.clock, "contact-import", { teamId: job.teamId, ...chain });
  const { record } = await holdStream(deps.store, stream, contactImportDecider, metadata);
  const now = () => formatTimestamp(deps.clock.now());
  await record({ type: "StartContactImport", now: now() });

  const types = await contactPropertyTypes(deps.store, job.teamId, Object.keys(job.columnMap.properties));
  const counts: ImportCounts = { ...job.counts };
  let errors: ImportRowError[] = [];
  let tallied = job.rowsDone;
  // A checkpoint is written while the next rows go on: waiting for it would drain the rows in flight at
  // every checkpoint. One at a time, in order; the last one is waited for before the import completes.
  let checkpointing: Promise<unknown> = Promise.resolve();
  const checkpoint = async () => {
    await checkpointing;
    const progress = { type: "RecordContactImportProgress" as const, rowsDone: tallied, counts: { ...counts }, errors };
    errors = [];
    checkpointing = record(progress);
    // Waited for by the next checkpoint or at the end; a failure the loop overtakes is not unhandled.
    checkpointing.catch(() => {});
  };
  const rows = new OrderedWindow<RowDone>(deps.rowsInFlight);
  // Counted in file order, whatever order the rows finish in: a checkpoint covers exactly the rows before it.
  const tally = async (done: Promise<Settled<RowDone>>) => {
    const { line, outcome } = unwrap(await done);
    tallied++;
    counts.total++;
    counts[outcome.kind]++;
    deps.rowsCounted?.inc({ outcome: outcome.kind });
    if (outcome.kind === "failed") errors.push({ line, reason: outcome.reason });
    if (tallied % deps.checkpointRows === 0) await checkpoint();
  };
  const parser = parse({
    bom: true,
    info: true,
    skip_empty_lines: true,
    relax_column_count: true,
    columns: (header: string[]) => {
      if (!header.includes(job.columnMap.email))
        throw new UnreadableFile(`The file has no \`${job.columnMap.email}\` column for the email address.`);
      return header;
    },
  });
  const source = Readable.from(deps.blobs.readStream(job.file.sha256));
  source.on("error", (error) => parser.destroy(error));
  source.pipe(parser);
  let row = 0;
  try {
    for await (const { record: csv, info } of parser as AsyncIterable<{ record: CsvRecord; info: { lines: number } }>) {
      if (stopping?.aborted) break;
      row++;
      if (row <= job.rowsDone) continue;
      const read = readImportRow(csv, job.columnMap, types);
      const n = row;
      const line = info.lines;
      // Rows of one email go one after the other, as they would one by one; other rows run side by side, so
      // their appends share the event store's round trips. While the window is full the parser waits (backpressure).
      const oldest = rows.add(read.ok ? normalContactEmail(read.email) : undefined, async () => ({
        line,
        outcome: await importRow(deps, job, types, n, read, metadata()),
      }));
      if (oldest) await tally(oldest);
    }
    for (let next = rows.next(); next; next = rows.next()) await tally(next);
  } catch (error) {
    await rows.settle();
    await checkpointing;
    const unreadable =
      error instanceof UnreadableFile
        ? error.message
        : (error as { code?: string }).code?.startsWith("CSV_")
          ? `The file is not valid CSV: ${(error as Error).message}`
          : undefined;
    if (unreadable === undefined) throw error;
    if (await record({ type: "FailContactImport", reason: unreadable, now: now() })) await deps.blobs.release(job.file.sha256);
    return;
  } finally {
    source.destroy();
  }
  await checkpoint();
  await checkpointing;
  stopping?.throwIfAborted();
  // The file names people, and an ended import never reads it again: it goes (docs/operations.md, "Erasure").
  // Released by the run that ended the import only, so a redelivered or concurrent run never releases twice.
  if (await record({ type: "CompleteContactImport", now: now() })) await deps.blobs.release(job.file.sha256);
  deps.logger.info({ importId, counts }, "contact import completed");
}

export async function startContactImportSaga(options: { bus: Bus; deps: ContactImportDeps }): Promise<Consumer> {
  const { bus, deps } = options;
  return consumeLongWork(bus, { durable: contactImportDurable, category: "import", type: "ContactImportQueued" }, (event, stopping) =>
    runContactImport(deps, event.data.importId, stopping),
  );
}
