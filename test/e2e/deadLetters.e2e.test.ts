import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { deterministicId } from "@tidings/core";
import { runCommand } from "@tidings/cli";
import { deadLetterStream, emailStream } from "@tidings/domain";
import { deliveryDurable } from "@tidings/sagas";
import { startMailingServer, type MailingServer } from "../support/mailingServer.js";

/** What `tidings <args>` printed on stdout, and its exit code, run on the server's own stores. */
async function tidings(mailing: MailingServer, ...args: string[]): Promise<{ code: number; stdout: string }> {
  const lines: string[] = [];
  const code = await runCommand(args, mailing.server.serving.runtime, { out: (line) => void lines.push(line), err: () => {} });
  return { code, stdout: lines.join("\n") };
}

/** Polls `read` until `done` holds, for up to 60 s: what a saga does takes that long beside a CPU hog. */
async function until<T>(what: string, read: () => Promise<T>, done: (value: T) => boolean): Promise<T> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`${what}: still ${JSON.stringify(value)} after 60 s`);
    await sleep(100);
  }
}

interface ListedLetter {
  id: string;
  consumer: string;
  messageId: string;
  event: { type: string; streamId: string } | null;
  deliveryCount: number;
  error: string;
}

/**
 * Issue 26's dead letter, made by a real fault under the real delivery saga: the blobs table, where the
 * email's attachment waits, is renamed away (as a restore or a migration gone wrong would leave it). The
 * saga cannot compose the message, throws, and the bus redelivers it until its 10 deliveries are spent.
 * A relay's refusal would not do: the saga takes a 4xx or an unreachable relay as a deferral of its own,
 * retried on its timers, never a failed handler.
 */
describe("a delivery the saga fails every time becomes a dead letter, which a retry delivers once the fault is fixed", () => {
  let mailing: MailingServer;
  const database = () => mailing.server.serving.runtime.database;

  beforeAll(async () => {
    // The bus's redeliveries 200 ms apart, so the 10 deliveries are spent in seconds, not an hour.
    mailing = await startMailingServer({ BUS_RETRY_BACKOFF_MS: "200" });
  });
  afterAll(() => mailing?.stop());

  it("shows the letter in doctor and deadletters list, and retry delivers the email once", { timeout: 300_000 }, async () => {
    const { resend, sink, server } = mailing;
    // Scheduled far ahead, so the api has stored the attachment before the fault, and the saga meets the
    // fault on its first delivery once the email is moved to now.
    const sent = await resend.emails.send({
      from: "Acme <hello@acme.test>",
      to: "ann@example.test",
      subject: "Your invoice",
      html: "<p>Attached.</p>",
      attachments: [{ filename: "invoice.txt", content: Buffer.from("Total: 12 EUR").toString("base64") }],
      scheduledAt: new Date(Date.now() + 3_600_000).toISOString(),
    });
    if (sent.error) throw new Error(`send: ${sent.error.message}`);
    const emailId = sent.data!.id;
    const messageId = `<${emailId}@${new URL(server.url).hostname}>`;

    await database().exec("ALTER TABLE blobs RENAME TO blobs_offline");
    let fixed = false;
    try {
      const moved = await resend.emails.update({ id: emailId, scheduledAt: new Date(Date.now() + 1_000).toISOString() });
      if (moved.error) throw new Error(`reschedule: ${moved.error.message}`);

      const listed = await until(
        "the delivery saga's dead letters",
        async () => {
          const { code, stdout } = await tidings(mailing, "deadletters", "list", "--json");
          expect(code).toBe(0);
          return (JSON.parse(stdout) as { deadLetters: ListedLetter[] }).deadLetters.filter(
            (l) => l.event?.streamId === emailStream(emailId),
          );
        },
        (letters) => letters.length > 0,
      );
      expect(listed).toHaveLength(1);
      const letter = listed[0]!;
      expect(letter).toMatchObject({ consumer: deliveryDurable, event: { type: "EmailQueued" }, deliveryCount: 10 });
      expect(letter.error).toMatch(/blobs/);
      expect(sink.withMessageId(messageId)).toEqual([]);
      expect((await resend.emails.get(emailId)).data?.last_event).toBe("queued");

      const table = await tidings(mailing, "deadletters", "list");
      expect(table.stdout.split("\n").find((line) => line.startsWith(`${letter.id} `))).toMatch(
        new RegExp(`^${letter.id}\\s+EmailQueued ${emailStream(emailId)}\\s+10\\s`),
      );

      const doctor = await tidings(mailing, "doctor");
      expect(doctor.code).toBe(1);
      expect(doctor.stdout.split("\n").find((line) => line.includes("dead letters"))).toMatch(
        new RegExp(`^✗\\s+dead letters\\s+${deliveryDurable} 1\\s+read them with tidings deadletters list`),
      );
      const doctorJson = await tidings(mailing, "doctor", "--json");
      expect(doctorJson.code).toBe(1);
      const report = JSON.parse(doctorJson.stdout) as { ok: boolean; checks: { check: string; ok: boolean; detail: string }[] };
      expect(report.ok).toBe(false);
      expect(report.checks.find((c) => c.check === "dead letters")).toMatchObject({ ok: false, detail: `${deliveryDurable} 1` });

      await database().exec("ALTER TABLE blobs_offline RENAME TO blobs");
      fixed = true;
      const retried = await tidings(mailing, "deadletters", "retry", letter.id);
      expect(retried.code).toBe(0);

      await until(
        "the email's status",
        async () => (await resend.emails.get(emailId)).data?.last_event,
        (status) => status === "delivered",
      );
      await until(
        "the copies at the sink",
        async () => sink.withMessageId(messageId).length,
        (n) => n > 0,
      );
      // Long enough for a second copy from the retry's other deliveries to arrive, if one were coming.
      await sleep(5_000);
      const copies = sink.withMessageId(messageId);
      expect(copies).toHaveLength(1);
      expect(copies[0]!.raw.toString("latin1")).toContain("invoice.txt");

      const recorded = await server.serving.runtime.store.readStream(
        deadLetterStream(deterministicId("dead-letter", deliveryDurable, letter.id.split("-").pop()!, letter.messageId)),
      );
      expect(recorded.map((e) => [e.type, e.metadata.actor])).toEqual([["DeadLetterRetried", "cli"]]);
      const after = await tidings(mailing, "deadletters", "list", "--json");
      expect((JSON.parse(after.stdout) as { deadLetters: ListedLetter[] }).deadLetters.map((l) => l.id)).not.toContain(letter.id);
    } finally {
      if (!fixed) await database().exec("ALTER TABLE blobs_offline RENAME TO blobs");
    }
  });
});
