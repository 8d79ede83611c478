import { setTimeout as sleep } from "node:timers/promises";
import { sql } from "kysely";
import type { Resend } from "resend";
import type { Database } from "@tidings/postgres";
import type { SmtpSink } from "@tidings/testkit";
import { distinctMessageIds } from "./sinkCopies.js";
import { succeeded } from "./wire.js";

/** Imports `count` readers (c0@example.test, first name Reader0, …) into the segment; resolves with the import's id once it is created. */
export async function importReaders(resend: Resend, segmentId: string, count: number): Promise<string> {
  const rows = ["email,first_name", ...Array.from({ length: count }, (_, i) => `c${i}@example.test,Reader${i}`)];
  const { id } = await succeeded(() =>
    resend.contacts.imports.create({
      file: new Blob([rows.join("\n")]),
      columnMap: { email: "email", firstName: "first_name" },
      segments: [{ id: segmentId }],
    }),
  );
  return id;
}

/**
 * Waits until the import has completed and the segment's read model holds its `count` members, for at most
 * `withinMs`; throws naming `failure()` past it.
 */
export async function untilImported(
  resend: Resend,
  importId: string,
  database: Database,
  segmentId: string,
  count: number,
  withinMs: number,
  failure: () => string,
): Promise<void> {
  const members = async () =>
    Number(
      (await sql<{ n: string }>`SELECT count(*) AS n FROM contact_segments WHERE segment_id = ${segmentId}`.execute(database.db)).rows[0]!
        .n,
    );
  const deadline = Date.now() + withinMs;
  while ((await succeeded(() => resend.contacts.imports.get(importId))).status !== "completed" || (await members()) < count) {
    if (Date.now() > deadline) throw new Error(`the import did not finish: ${failure()}`);
    await sleep(250);
  }
}

/** Sends the segment, at once, a broadcast from `from` that greets each reader by first name; resolves with its id. */
export async function broadcastToReaders(resend: Resend, segmentId: string, from: string): Promise<string> {
  const { id } = await succeeded(() =>
    resend.broadcasts.create({
      segmentId,
      from,
      subject: "Hello {{{FIRST_NAME|there}}}",
      text: "Hi {{{contact.first_name}}}",
      send: true,
    }),
  );
  return id;
}

/** Waits until the relay holds `count` sends unanswered; resolves with how many it holds, or throws naming `failure()`. */
export async function untilRelayHolds(sink: SmtpSink, count: number, failure: () => string): Promise<number> {
  const deadline = Date.now() + 120_000;
  while (sink.heldReplies < count) {
    if (Date.now() > deadline) throw new Error(`the broadcast did not reach the relay: ${failure()}`);
    await sleep(50);
  }
  return sink.heldReplies;
}

/**
 * Once the relay has answered the sends it held at a stop (it keeps those messages, client gone or not), the
 * copies it received beyond one per reader, and the line that sums them up.
 */
export async function repeatsOfHeldSends(
  sink: SmtpSink,
  readers: number,
  heldAtStop: number,
): Promise<{ repeats: number; summary: string }> {
  while (sink.heldReplies > 0) await sleep(100);
  const repeats = sink.received.length - readers;
  return {
    repeats,
    summary: `broadcast: ${readers} contacts, ${distinctMessageIds(sink.received)} distinct Message-IDs, ${repeats} repeat(s), of ${heldAtStop} sends held by the relay at the stop`,
  };
}
