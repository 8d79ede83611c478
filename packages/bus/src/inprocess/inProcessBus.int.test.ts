import { testDatabaseForFile } from "@tidings/postgres/testing";
import { sql } from "kysely";
import { describe, expect, it } from "vitest";
import type { Bus } from "../port.js";
import { recordingConsumer, sleep, waitUntil } from "../recordingConsumer.js";
import { createInProcessBus } from "./bus.js";

/** Behaviour of the in-process adapter beyond the contract: how it finds, wakes and forgets messages. */
describe("in-process bus", () => {
  const test = testDatabaseForFile();
  let n = 0;
  const ns = () => `p${++n}${Math.random().toString(36).slice(2, 6)}`;
  const count = async (subjectPrefix: string) => {
    const { rows } = await sql<{
      n: string;
    }>`SELECT count(*)::text AS n FROM bus_messages WHERE subject LIKE ${`${subjectPrefix}%`}`.execute(test.database.db);
    return Number(rows[0]!.n);
  };

  it("reaches a matching message behind many messages of other subjects without waiting for a poll", async () => {
    const bus = await createInProcessBus(test.database, { pollIntervalMs: 60_000 });
    const s = ns();
    await Promise.all([...Array(700).keys()].map((i) => bus.publish(`events.${s}.Other`, i, { msgId: `${s}-o${i}` })));
    await bus.publish(`events.${s}.Wanted`, "here", { msgId: `${s}-w` });
    const c = await recordingConsumer(bus, { durable: `${s}-w`, filterSubject: `events.${s}.Wanted`, maxDeliver: 3 });
    await c.waitFor(1, 5_000);
    await c.stop();
    await bus.close();
    expect(c.received.map((r) => r.data)).toEqual(["here"]);
  });

  it("wakes a consumer of another bus on the same database when a message is published", async () => {
    const publisher = await createInProcessBus(test.database, { pollIntervalMs: 60_000 });
    const other = test.database.kind === "postgres" ? await test.reopen() : test.database;
    const consuming = await createInProcessBus(other, { pollIntervalMs: 60_000 });
    const s = ns();
    const c = await recordingConsumer(consuming, { durable: `${s}-c`, filterSubject: `events.${s}.*`, maxDeliver: 3 });
    await sleep(100);
    await publisher.publish(`events.${s}.T`, 1, { msgId: `${s}-1` });
    await c.waitFor(1, 3_000);
    await c.stop();
    await Promise.all([publisher.close(), consuming.close()]);
    if (other !== test.database) await other.close();
  });

  it("prunes a message once every durable has read it and the dedup window has passed, but keeps dead letters", async () => {
    // Durables left by earlier tests would hold every later message back, which is the point of this test.
    await sql`DELETE FROM bus_consumers`.execute(test.database.db);
    const bus = await createInProcessBus(test.database, { dedupWindowMs: 0, pruneIntervalMs: 50 });
    const s = ns();
    const options = (durable: string) => ({ durable: `${s}-${durable}`, filterSubject: `events.${s}.>`, maxDeliver: 1 });
    const first = await recordingConsumer(bus, options("first"), async (m) => {
      if (m.data === "poison") throw new Error("cannot");
    });
    const laggard = await recordingConsumer(bus, options("laggard"));
    await laggard.stop();
    for (const data of ["a", "b", "poison"]) await bus.publish(`events.${s}.T`, data, { msgId: `${s}-${data}` });
    await first.waitFor(3);
    await sleep(300);
    expect(await count(`events.${s}.`)).toBe(3);

    const late = await recordingConsumer(bus, options("laggard"));
    await late.waitFor(3);
    await waitUntil(async () => (await count(`events.${s}.`)) === 0, 3_000);
    await Promise.all([first.stop(), late.stop()]);
    await bus.close();
    expect(await bus.deadLetters(`${s}-first`)).toHaveLength(1);
  });

  it("prunes anything older than the maximum age, read or not", async () => {
    const bus: Bus = await createInProcessBus(test.database, { maxAgeMs: 0, pruneIntervalMs: 50 });
    const s = ns();
    await bus.publish(`events.${s}.T`, 1, { msgId: `${s}-1` });
    await waitUntil(async () => (await count(`events.${s}.`)) === 0, 3_000);
    await bus.close();
  });
});
