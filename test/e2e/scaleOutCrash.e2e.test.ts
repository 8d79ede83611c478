import { type ChildProcess } from "node:child_process";
import { setTimeout as sleep } from "node:timers/promises";
import { Resend } from "resend";
import { afterAll, beforeAll, expect, it } from "vitest";
import { broadcastEmailId } from "@tidings/core";
import { openEventStore, type OpenedEventStore } from "@tidings/eventstore";
import { openDatabase, type Database } from "@tidings/postgres";
import { startSmtpSink, type ReceivedMessage, type SmtpSink } from "@tidings/testkit";
import { broadcastEvents, messageIdsOf, plannedRecipients } from "../support/broadcastEmails.js";
import { broadcastToReaders, importReaders, untilImported } from "../support/readerBroadcast.js";
import { describeKillingSagas } from "../support/serverModeOnly.js";
import { startSplitRoles, type SplitRoles } from "../support/splitRoles.js";
import { freePort } from "../support/testServer.js";
import { paced, succeeded } from "../support/wire.js";

/**
 * A tenth of issue #25's scale in `npm test` (its time budget: the import alone of 20,000 contacts took over
 * 300 s on a loaded 2-core machine); SCALE_OUT_CONTACTS=20000 SCALE_OUT_TRANSACTIONAL=2000 runs the issue's
 * 20,000-contact broadcast beside 2,000 transactional emails.
 */
const contacts = Number(process.env.SCALE_OUT_CONTACTS ?? 2_000);
const transactional = Number(process.env.SCALE_OUT_TRANSACTIONAL ?? 400);
const sagasProcesses = 3;
const mailConcurrency = 8;
const batchSize = 100;

/**
 * Issue #25's scale-out test: 2 api, 1 projector and 3 sagas processes on one PostgreSQL and one NATS.
 * Each sagas process sends to an SMTP sink of its own, so each sink's count is that process's share. One
 * sagas process is SIGKILLed in the middle and not started again: the other two must take over its
 * share (its unacknowledged messages, its leased timers) and every email must reach a sink once, a
 * repeat allowed only for a send the killed process had in flight (docs/architecture.md §1).
 */
describeKillingSagas("scale-out crash test", "2 api, 1 projector and 3 sagas processes, one sagas process killed mid-send", () => {
  const sinks: SmtpSink[] = [];
  const sagas: ChildProcess[] = [];
  /** The sagas processes that said they stood still for half their messages' ack wait. */
  const stoodStill = new Set<number>();
  let roles: SplitRoles;
  let database: Database;
  let events: OpenedEventStore;
  let secondApiUrl: string;

  beforeAll(async () => {
    for (let i = 0; i < sagasProcesses; i++) sinks.push(await startSmtpSink());
    roles = await startSplitRoles(
      {
        TIDINGS_ALLOW_UNVERIFIED_FROM: "true",
        MAIL_TRANSPORT: "smtp",
        SMTP_URL: sinks[0]!.url,
        MAIL_CONCURRENCY: String(mailConcurrency),
        TIMER_LEASE_MS: "5000",
      },
      { projectorChild: true },
    );
    database = await openDatabase({ url: roles.database.url, poolSize: 2 });
    events = await openEventStore(roles.database.url);
    const port = await freePort();
    roles.startRole("api", { PORT: String(port) });
    secondApiUrl = `http://127.0.0.1:${port}`;
    const deadline = Date.now() + 120_000;
    while (
      !(await fetch(`${secondApiUrl}/health`).then(
        (r) => r.ok,
        () => false,
      ))
    ) {
      if (Date.now() > deadline) throw new Error(`the second api did not start: ${roles.errors("api")}`);
      await sleep(100);
    }
    for (const sink of sinks) {
      const child = roles.startRole("sagas", { SMTP_URL: sink.url });
      const index = sagas.push(child) - 1;
      child.stdout!.on("data", (chunk: Buffer) => {
        if (chunk.toString().includes("this process stood still")) stoodStill.add(index);
      });
    }
  }, 300_000);
  afterAll(async () => {
    await database?.close();
    await events?.close();
    await roles?.stop();
    for (const sink of sinks) await sink.close();
  });

  it(
    "sends every email once, spread over the sagas processes, the survivors taking the killed one's share",
    { timeout: 300_000 + (contacts + transactional) * 100 },
    async () => {
      const apis = [new Resend(roles.token, { baseUrl: roles.url }), new Resend(roles.token, { baseUrl: secondApiUrl })];
      const [first] = apis as [Resend, Resend];
      const segmentId = (await succeeded(() => first.segments.create({ name: "Everyone" }))).id;
      const importId = await importReaders(first, segmentId, contacts);
      await untilImported(first, importId, database, segmentId, contacts, 120_000 + contacts * 30, () => roles.errors("sagas"));

      const received = (): ReceivedMessage[] => sinks.flatMap((sink) => sink.received);
      const distinct = () => new Set(received().map((m) => m.messageId)).size;
      const total = contacts + transactional;
      const started = Date.now();
      const broadcastId = await broadcastToReaders(first, segmentId, "News <news@scale.test>");
      // The transactional emails go in beside the broadcast, through both apis in turn.
      const sending = (async () => {
        const ids: string[] = [];
        for (let batch = 0; batch * batchSize < transactional; batch++) {
          const api = apis[batch % apis.length]!;
          const emails = Array.from({ length: Math.min(batchSize, transactional - batch * batchSize) }, (_, i) => ({
            from: "Receipts <receipts@scale.test>",
            to: [`t${batch * batchSize + i}@example.test`],
            subject: "Your receipt",
            text: `Receipt ${batch * batchSize + i}`,
          }));
          const { data, error } = await paced(() => api.batch.send(emails));
          expect(error).toBeNull();
          ids.push(...data!.data.map((e) => e.id));
        }
        return ids;
      })();

      while (distinct() < total * 0.4) await sleep(5);
      const victim = 1;
      const atKill = sinks.map((sink) => sink.received.length);
      const killedAt = Date.now();
      await roles.kill(sagas[victim]!);
      const transactionalIds = await sending;

      const deadline = Date.now() + 120_000 + total * 30;
      let last = distinct();
      let lastChange = Date.now();
      while (distinct() < total) {
        if (Date.now() > deadline || Date.now() - lastChange > 120_000) break;
        await sleep(200);
        if (distinct() !== last) [last, lastChange] = [distinct(), Date.now()];
      }
      const seconds = (Date.now() - started) / 1000;
      expect(distinct(), `sagas output: ${roles.errors("sagas")}`).toBe(total);

      const planned = plannedRecipients(await broadcastEvents(events.store, broadcastId));
      expect(planned).toHaveLength(contacts);
      const expected = messageIdsOf([...planned.map((r) => broadcastEmailId(broadcastId, r.contactId)), ...transactionalIds], roles.url);
      expect(expected.size).toBe(total);
      expect(received().every((m) => expected.has(m.messageId ?? ""))).toBe(true);

      const repeats = received().length - total;
      const shares = sinks.map((sink) => sink.received.length);
      console.log(
        `scale-out test: 2 api, 1 projector, ${sagasProcesses} sagas processes; ${contacts} broadcast + ${transactional} transactional emails, ` +
          `${distinct()} distinct Message-IDs in ${seconds.toFixed(1)} s (${Math.round(total / seconds)}/s; the kill after ${((killedAt - started) / 1000).toFixed(1)} s), ${repeats} repeat(s); ` +
          `shares by sagas process: ${shares.map((n, i) => `#${i + 1}${i === victim ? " (SIGKILLed)" : ""} ${n} (${((100 * n) / received().length).toFixed(1)}%, ${atKill[i]} at the kill)`).join(", ")}`,
      );
      // Each repeated Message-ID with the sinks (sagas processes) its copies reached and when, from the kill:
      // a repeat of the crash window has its first copy from the killed process, just before the kill.
      const copies = new Map<string, string[]>();
      for (const [i, sink] of sinks.entries())
        for (const m of sink.received)
          copies.set(m.messageId ?? "", [...(copies.get(m.messageId ?? "") ?? []), `#${i + 1} ${m.receivedAt.getTime() - killedAt} ms`]);
      const repeated = [...copies.values()].filter((at) => at.length > 1);
      if (repeated.length > 0) console.log(`repeats (sagas process, ms from the kill): ${repeated.map((at) => at.join(" & ")).join("; ")}`);
      // A process that stood still that long has its messages handed to another process, as a killed one does;
      // what it had with the relay then is the same window (docs/architecture.md §5, "Holding a message").
      const stalled = [...stoodStill].filter((i) => i !== victim);
      if (stalled.length > 0) console.log(`sagas processes that stood still: ${stalled.map((i) => `#${i + 1}`).join(", ")}`);
      expect(repeats).toBeLessThanOrEqual(mailConcurrency * (1 + stalled.length));
      for (const [i, n] of shares.entries()) {
        if (i === victim) expect(n).toBeGreaterThan(0);
        else expect(n - atKill[i]!, `sagas process #${i + 1} took no share after the kill`).toBeGreaterThan(0);
      }
      for (const n of atKill) expect(n, "a sagas process had sent nothing before the kill").toBeGreaterThan(0);
    },
  );
});
