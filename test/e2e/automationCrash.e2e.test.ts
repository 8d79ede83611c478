import { type ChildProcess } from "node:child_process";
import { setTimeout as sleep } from "node:timers/promises";
import { sql } from "kysely";
import { Resend } from "resend";
import { expect, it } from "vitest";
import { stepEmailId } from "@tidings/sagas";
import { mailingRolesForSuite } from "../support/mailingRoles.js";
import { describeKillingSagas } from "../support/serverModeOnly.js";
import { distinctMessageIds, firstCopiesOfRepeats } from "../support/sinkCopies.js";
import { succeeded } from "../support/wire.js";

/** Runs in flight, the scale: about 19 s here since the delivery saga reads ahead (`AUTOMATION_CRASH_RUNS` to change it). */
const runs = Number(process.env.AUTOMATION_CRASH_RUNS ?? 1000);
const kills = 2;
/** SMTP connections: each can be in the delivery saga's 250-to-record window when a kill lands. */
const mailConcurrency = 4;

/**
 * Issue 9's crash test: runs of `trigger → send_email → delay 2 s → send_email` are started while the
 * sagas process (the runner, the timers, delivery) is SIGKILLed twice. Every run must complete, each with
 * exactly one queued email per send step, and every email reaches the sink. The only duplicate delivery
 * allowed is the delivery saga's own 250-to-record window (docs/architecture.md §1): the same Message-ID again, at most
 * one per SMTP connection per kill, and only for a message first accepted before a kill.
 */
describeKillingSagas("automation crash test", "automation runs with the sagas process killed twice", () => {
  const deployment = mailingRolesForSuite(mailConcurrency);
  let sagas: ChildProcess | undefined;

  it("completes every run with one email per send step reached", { timeout: 600_000 }, async () => {
    const { sink, roles, database } = deployment;
    const resend = new Resend(roles.token, { baseUrl: roles.url });
    await succeeded(() => resend.events.create({ name: "crash.signed_up" }));
    const welcome = await succeeded(() =>
      resend.templates
        .create({
          name: "Welcome",
          subject: "Welcome {{{N}}}",
          html: "<p>{{{N}}}</p>",
          from: "Crash <crash@crash.test>",
          variables: [{ key: "N", type: "string", fallbackValue: null }],
        })
        .publish(),
    );
    const after = await succeeded(() =>
      resend.templates
        .create({ name: "After", subject: "Two seconds later", html: "<p>later</p>", from: "Crash <crash@crash.test>" })
        .publish(),
    );
    await succeeded(() =>
      resend.automations.create({
        name: "Crash",
        status: "enabled",
        steps: [
          { key: "start", type: "trigger", config: { eventName: "crash.signed_up" } },
          { key: "welcome", type: "send_email", config: { template: { id: welcome.id, variables: { N: { var: "payload.n" } } } } },
          { key: "pause", type: "delay", config: { duration: "2 seconds" } },
          { key: "after", type: "send_email", config: { template: { id: after.id } } },
        ],
        connections: [
          { from: "start", to: "welcome" },
          { from: "welcome", to: "pause" },
          { from: "pause", to: "after" },
        ],
      }),
    );

    sagas = roles.startSagas();
    const started = Date.now();
    let next = 0;
    const sending = Promise.all(
      Array.from({ length: 16 }, async () => {
        while (next < runs) {
          const n = next++;
          await succeeded(() => resend.events.send({ event: "crash.signed_up", email: `r${n}@example.test`, payload: { n: String(n) } }));
        }
      }),
    );
    // First kill once welcomes are flowing, the second once some runs wait on their delay or are past it.
    const killedAt: number[] = [];
    for (const threshold of [Math.ceil(runs * 0.2), Math.ceil(runs * 1.1)]) {
      await sink.waitFor((received) => received.length >= threshold, 300_000);
      await sleep(Math.random() * 500);
      await roles.kill(sagas);
      killedAt.push(Date.now());
      sagas = roles.startSagas();
    }
    await sending;

    const statusCounts = async () => {
      const { rows } = await sql<{
        status: string;
        n: string;
      }>`SELECT status, count(*)::text AS n FROM automation_runs GROUP BY status`.execute(database.db);
      return Object.fromEntries(rows.map((r) => [r.status, Number(r.n)]));
    };
    const deadline = Date.now() + 300_000;
    let counts = await statusCounts();
    while ((counts.completed ?? 0) < runs && Date.now() < deadline) {
      await sleep(500);
      counts = await statusCounts();
    }
    expect(counts, `sagas stderr: ${roles.errors("sagas")}`).toEqual({ completed: runs });

    // One queued email per send step of every run, under the id the run and the step derive.
    const { rows: runIds } = await sql<{ id: string }>`SELECT id::text FROM automation_runs`.execute(database.db);
    const expected = new Set(runIds.flatMap(({ id }) => [stepEmailId(id, "welcome"), stepEmailId(id, "after")]));
    const { rows: queued } = await sql<{ stream_id: string }>`SELECT stream_id FROM eventstore.events WHERE type = 'EmailQueued'`.execute(
      database.db,
    );
    expect(queued.length).toBe(2 * runs);
    expect(new Set(queued.map((q) => q.stream_id.slice("email-".length)))).toEqual(expected);
    const { rows: recorded } = await sql<{ id: string; n: string }>`
      SELECT data->>'key' AS id, count(*)::text AS n FROM eventstore.events WHERE type = 'AutomationRunStepCompleted' GROUP BY stream_id, data->>'key' HAVING count(*) > 1`.execute(
      database.db,
    );
    expect(recorded, "a step recorded twice").toEqual([]);

    const unique = () => distinctMessageIds(sink.received);
    while (unique() < 2 * runs && Date.now() < deadline) await sleep(200);
    expect(unique()).toBe(2 * runs);
    expect(sink.received.every((m) => expected.has(/^<([^@]+)@/.exec(m.messageId ?? "")?.[1] ?? ""))).toBe(true);
    const duplicates = sink.received.length - 2 * runs;
    expect(duplicates).toBeLessThanOrEqual(kills * mailConcurrency);
    for (const first of firstCopiesOfRepeats(sink.received)) expect(killedAt.some((at) => first <= at)).toBe(true);
    console.log(
      `automation crash test: ${runs} runs (${2 * runs} emails), ${killedAt.length} SIGKILLs of the sagas process, ${duplicates} duplicate deliveries (same Message-ID); ` +
        `all runs completed after ${((Date.now() - started) / 1000).toFixed(1)} s`,
    );
  });
});
