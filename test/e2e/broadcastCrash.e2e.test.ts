import { type ChildProcess } from "node:child_process";
import { setTimeout as sleep } from "node:timers/promises";
import { sql } from "kysely";
import { Resend } from "resend";
import { expect, it } from "vitest";
import { broadcastEmailId } from "@tidings/core";
import { broadcastEvents, emailStreamShapes, messageIdsOf, plannedRecipients } from "../support/broadcastEmails.js";
import { mailingRolesForSuite } from "../support/mailingRoles.js";
import { broadcastToReaders, importReaders, untilImported } from "../support/readerBroadcast.js";
import { describeKillingSagas } from "../support/serverModeOnly.js";
import { distinctMessageIds } from "../support/sinkCopies.js";
import { succeeded } from "../support/wire.js";

/** 1,000 in `npm test` (its time budget); BROADCAST_CRASH_CONTACTS=20000 for the full scale (minutes on a 2-core machine). */
const contacts = Number(process.env.BROADCAST_CRASH_CONTACTS ?? 1_000);
const kills = 2;
/** A deploy's SIGTERM: every role exits within 10 s (issue 20), whatever it has left. */
const sigtermWithinMs = 10_000;
const mailConcurrency = 8;

/**
 * Issue 7's crash test: a broadcast to a segment of `contacts` contacts, with the sagas process (fan-out
 * and delivery) SIGKILLed twice while it runs, and stopped by SIGTERM once between. In the end there is exactly one email per contact, each
 * delivered once, and the sink has every Message-ID; a repeat is allowed only from the 250-to-record
 * window of a kill (docs/architecture.md §1), at most one per message in flight.
 */
describeKillingSagas("broadcast crash test", "a broadcast with the sagas process killed twice and stopped once", () => {
  const deployment = mailingRolesForSuite(mailConcurrency);
  let sagas: ChildProcess | undefined;

  it(
    "ends with exactly one email per contact, all delivered, every Message-ID at the sink",
    { timeout: 120_000 + contacts * 60 },
    async () => {
      const { sink, roles, events, database } = deployment;
      const resend = new Resend(roles.token, { baseUrl: roles.url });
      sagas = roles.startSagas();
      const segmentId = (await succeeded(() => resend.segments.create({ name: "Everyone" }))).id;
      const importId = await importReaders(resend, segmentId, contacts);
      await untilImported(resend, importId, database, segmentId, contacts, 60_000 + contacts * 10, () => roles.errors("sagas"));

      const started = Date.now();
      const id = await broadcastToReaders(resend, segmentId, "News <news@crash.test>");
      const unique = () => distinctMessageIds(sink.received);
      const statusAtKill: string[] = [];
      // The first kill lands while the fan-out is still queueing (a few percent delivered), the second mid-delivery.
      // The SIGTERM between finds the fan-out waiting for room in its window, which the delivery saga,
      // stopping too, no longer makes.
      for (const [fraction, stop] of [
        [0.05, "SIGKILL"],
        [0.25, "SIGTERM"],
        [0.5, "SIGKILL"],
      ] as const) {
        while (unique() < contacts * fraction) await sleep(5);
        await sleep(Math.random() * 300);
        const status = (await succeeded(() => resend.broadcasts.get(id))).status;
        if (stop === "SIGKILL") await roles.kill(sagas!);
        statusAtKill.push(
          stop === "SIGKILL"
            ? `${status} (SIGKILL)`
            : `${status} (SIGTERM, exited in ${await roles.terminate(sagas!, sigtermWithinMs)} ms)`,
        );
        sagas = roles.startSagas();
      }

      const deadline = Date.now() + 60_000 + contacts * 30;
      while (unique() < contacts && Date.now() < deadline) await sleep(200);
      const delivered = Date.now();
      expect(unique(), `sagas stderr: ${roles.errors("sagas")}`).toBe(contacts);

      const stream = await broadcastEvents(events.store, id);
      const planned = plannedRecipients(stream);
      expect(planned).toHaveLength(contacts);
      expect(new Set(planned.map((r) => r.contactId)).size).toBe(contacts);
      expect(stream.filter((e) => e.type === "BroadcastSent")).toHaveLength(1);
      const ids = planned.map((r) => broadcastEmailId(id, r.contactId));

      // One stream per contact, each with one EmailQueued and one outcome, and no other email of the broadcast.
      expect(await emailStreamShapes(events.store, ids)).toEqual({ "EmailQueued,EmailDelivered": contacts });
      let rowsInReadModel = 0;
      while (Date.now() < deadline) {
        rowsInReadModel = Number(
          (await sql<{ n: string }>`SELECT count(*) AS n FROM emails WHERE broadcast_id = ${id}`.execute(database.db)).rows[0]!.n,
        );
        if (rowsInReadModel >= contacts) break;
        await sleep(200);
      }
      expect(rowsInReadModel).toBe(contacts);

      const expected = messageIdsOf(ids, roles.url);
      expect(sink.received.every((m) => expected.has(m.messageId ?? ""))).toBe(true);
      const duplicates = sink.received.length - contacts;
      console.log(
        `broadcast crash test: ${contacts} contacts, ${kills} SIGKILLs and a SIGTERM of the sagas process (broadcast ${statusAtKill.join(" then ")} at the stops); ` +
          `${ids.length} emails, ${new Set(ids).size} distinct ids, ${unique()} distinct Message-IDs at the sink, ${duplicates} duplicate(s); ` +
          `all delivered ${((delivered - started) / 1000).toFixed(1)} s after the send`,
      );
      expect(duplicates).toBeLessThanOrEqual(kills * mailConcurrency);
    },
  );
});
