import { setTimeout as sleep } from "node:timers/promises";
import type { Resend } from "resend";
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
