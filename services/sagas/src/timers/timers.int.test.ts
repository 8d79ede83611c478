import { setTimeout as sleep } from "node:timers/promises";
import { createLogger } from "@tidings/core";
import { createTestDatabase, migrate, testMode, type Database, type TestDatabase } from "@tidings/postgres";
import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { timerMigrations } from "./migrations.js";
import { startTimerPoller, type TimerPoller } from "./poller.js";
import { createTimers, type DueTimer } from "./timers.js";

const logger = createLogger("silent");

async function waitUntil(check: () => boolean, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error("condition not met in time");
    await sleep(20);
  }
}

describe(`durable timers (${testMode() === "server" ? "PostgreSQL" : "PGlite"})`, () => {
  let test: TestDatabase;
  let database: Database;
  let poller: TimerPoller | undefined;
  const fired: (DueTimer & { at: number })[] = [];
  /** Keys whose firing throws, to show a failed fire is retried. */
  const failing = new Set<string>();
  const firedKeys = (key: string) => fired.filter((f) => f.key === key);
  const startPoller = (db = database, extra: { intervalMs?: number } = {}) =>
    startTimerPoller({
      database: db,
      logger,
      retryDelayMs: 100,
      ...extra,
      async fire(timer) {
        if (failing.delete(timer.key)) throw new Error("fire failed on purpose");
        fired.push({ ...timer, at: Date.now() });
      },
    });

  beforeAll(async () => {
    test = await createTestDatabase({ persistent: true });
    database = test.database;
    await migrate(database, "timers", timerMigrations);
    poller = startPoller();
  });
  afterAll(async () => {
    await poller?.stop();
    await test?.dispose();
  });

  it("fires a timer within a second of its due time, with its payload, and only once", async () => {
    const dueAt = new Date(Date.now() + 600);
    await createTimers(database).schedule("t-on-time", dueAt, { emailId: "e1" });
    await waitUntil(() => firedKeys("t-on-time").length > 0);
    const [f] = firedKeys("t-on-time");
    expect(f!.payload).toEqual({ emailId: "e1" });
    expect(f!.at).toBeGreaterThanOrEqual(dueAt.getTime());
    expect(f!.at - dueAt.getTime()).toBeLessThan(1_000);
    await sleep(500);
    expect(firedKeys("t-on-time")).toHaveLength(1);
  });

  it("keeps one timer per key: scheduling again moves it and replaces the payload", async () => {
    const timers = createTimers(database);
    // A second ahead: the move must come first on a loaded machine too.
    await timers.schedule("t-moved", new Date(Date.now() + 1_000), { v: 1 });
    const later = new Date(Date.now() + 2_500);
    await timers.schedule("t-moved", later, { v: 2 });
    await sleep(1_800);
    expect(firedKeys("t-moved")).toHaveLength(0);
    await waitUntil(() => firedKeys("t-moved").length > 0);
    expect(firedKeys("t-moved")[0]!.payload).toEqual({ v: 2 });
    expect(firedKeys("t-moved")[0]!.at).toBeGreaterThanOrEqual(later.getTime());
  });

  it("never fires a cancelled timer", async () => {
    const timers = createTimers(database);
    await timers.schedule("t-cancelled", new Date(Date.now() + 1_000), {});
    await timers.cancel("t-cancelled");
    await sleep(1_500);
    expect(firedKeys("t-cancelled")).toHaveLength(0);
  });

  it("fires again, with a higher attempt, a timer whose firing threw", async () => {
    failing.add("t-retried");
    await createTimers(database).schedule("t-retried", new Date(), {});
    await waitUntil(() => firedKeys("t-retried").length > 0);
    expect(firedKeys("t-retried")[0]!.attempt).toBe(2);
  });

  it("fires a timer claimed by a process that died, once that process's lease runs out", async () => {
    await createTimers(database).schedule("t-orphaned", new Date(Date.now() + 60_000), {});
    // What a poller leaves behind when it is killed between claiming a due timer and deleting it.
    await sql`
      UPDATE due_timers SET due_at = now(), locked_until = now() + interval '800 milliseconds', attempts = 1
      WHERE key = 't-orphaned'`.execute(database.db);
    const claimedAt = Date.now();
    await waitUntil(() => firedKeys("t-orphaned").length > 0);
    expect(firedKeys("t-orphaned")[0]!.at - claimedAt).toBeGreaterThanOrEqual(700);
    expect(firedKeys("t-orphaned")[0]!.attempt).toBe(2);
  });

  it("lets several pollers share the table without firing a timer twice", async () => {
    const others = [startPoller(database, { intervalMs: 10 }), startPoller(database, { intervalMs: 15 })];
    const timers = createTimers(database);
    const now = Date.now();
    await Promise.all(Array.from({ length: 60 }, (_, i) => timers.schedule(`t-shared-${i}`, new Date(now + 200), { i })));
    await waitUntil(() => fired.filter((f) => f.key.startsWith("t-shared-")).length >= 60);
    await sleep(300);
    await Promise.all(others.map((o) => o.stop()));
    const keys = fired.filter((f) => f.key.startsWith("t-shared-")).map((f) => f.key);
    expect(new Set(keys).size).toBe(60);
    expect(keys).toHaveLength(60);
  });

  it("aborts a fire under way when stopped, and hands its timer straight back for the next poller", async () => {
    await poller!.stop();
    let firing!: () => void;
    const fireStarted = new Promise<void>((resolve) => (firing = resolve));
    // Leases and retry delays long enough that only a timer handed back could fire again within the test.
    const stopped = startTimerPoller({
      database,
      logger,
      leaseMs: 60_000,
      retryDelayMs: 60_000,
      intervalMs: 10,
      fire: (_timer, stopping) =>
        new Promise<void>((_, reject) => {
          firing();
          stopping.addEventListener("abort", () => reject(stopping.reason), { once: true });
        }),
    });
    await createTimers(database).schedule("t-stopped", new Date(), { long: true });
    await fireStarted;
    await stopped.stop();
    poller = startPoller();
    await waitUntil(() => firedKeys("t-stopped").length > 0);
    expect(firedKeys("t-stopped")[0]!.attempt).toBe(2);
  });

  it("renews the lease of a fire that outlasts it, so no other poller fires the timer meanwhile", async () => {
    await poller!.stop();
    // `stillHeld` wants a renewal confirmed within half the lease, and one goes out every third of it: the
    // sixth between is what a starved event loop or a slow round trip may use up. At 1 s (170 ms of slack)
    // a CI run beside a CPU hog saw the claim as lapsed, rightly; at 3 s the slack is half a second.
    const leaseMs = 3_000;
    const lockedUntil = async (key: string) =>
      (
        await sql<{ at: Date; attempts: number }>`SELECT locked_until AS at, attempts FROM due_timers WHERE key = ${key}`.execute(
          database.db,
        )
      ).rows[0]!;
    const atEnd: { held: boolean; renewed: boolean; attempts: number }[] = [];
    const slow = startTimerPoller({
      database,
      logger,
      leaseMs,
      intervalMs: 10,
      async fire(timer) {
        fired.push({ ...timer, at: Date.now() });
        const claimed = await lockedUntil(timer.key);
        await sleep(2.5 * leaseMs);
        const now = await lockedUntil(timer.key);
        atEnd.push({ held: timer.stillHeld(), renewed: now.at.getTime() > claimed.at.getTime(), attempts: now.attempts });
      },
    });
    await createTimers(database).schedule("t-long-fire", new Date(), {});
    await waitUntil(() => firedKeys("t-long-fire").length > 0);
    // Polls every 10 ms: a lease left to run out would be its to claim within the fire.
    poller = startPoller(database, { intervalMs: 10 });
    await waitUntil(() => atEnd.length > 0, 30_000);
    await slow.stop();
    expect(firedKeys("t-long-fire")).toHaveLength(1);
    // The database's lease moved on past the claim's, and no other claim raised the attempts.
    expect(atEnd).toEqual([{ held: true, renewed: true, attempts: 1 }]);
  });

  /** Fires `key` on a poller of its own with `leaseMs`, and answers what `fire` saw its claim's `stillHeld` say. */
  const heldAsSeenBy = async (key: string, leaseMs: number, fire: (timer: DueTimer) => Promise<void> | void) => {
    await poller!.stop();
    poller = undefined;
    const held: boolean[] = [];
    const own = startTimerPoller({
      database,
      logger,
      leaseMs,
      intervalMs: 10,
      async fire(timer) {
        held.push(timer.stillHeld());
        await fire(timer);
        held.push(timer.stillHeld());
      },
    });
    await createTimers(database).schedule(key, new Date(), {});
    await waitUntil(() => held.length === 2, 10_000);
    await own.stop();
    poller = startPoller();
    return held;
  };

  it("tells a fire its claim no longer holds once the process stood still for half the lease", async () => {
    const held = await heldAsSeenBy("t-stalled", 1_000, () => {
      // No turn for 600 ms: past half the 1 s lease, no renewal could have been confirmed.
      const until = performance.now() + 600;
      while (performance.now() < until);
    });
    expect(held).toEqual([true, false]);
  });

  it("tells a fire its claim no longer holds once another poller claimed the timer, and leaves that claim's lease alone", async () => {
    const held = await heldAsSeenBy("t-taken", 3_000, async (timer) => {
      // What another poller's claim leaves: the attempts raised, the lease its own.
      await sql`UPDATE due_timers SET attempts = attempts + 1, locked_until = now() + interval '1 minute' WHERE key = ${timer.key}`.execute(
        database.db,
      );
      // Past the renewal a second in, well within the half of the 3 s lease a confirmed renewal would have left.
      await sleep(1_300);
      const { rows } = await sql<{ left: number }>`
        SELECT extract(epoch from locked_until - now())::float8 AS left FROM due_timers WHERE key = ${timer.key}`.execute(database.db);
      expect(rows[0]!.left).toBeGreaterThan(30);
    });
    expect(held).toEqual([true, false]);
  });

  it("survives a restart: a timer scheduled before closing fires after reopening", async () => {
    await createTimers(database).schedule("t-restart", new Date(Date.now() + 1_500), { kept: true });
    await poller!.stop();
    poller = undefined;
    database = await test.reopen();
    poller = startPoller(database);
    await waitUntil(() => firedKeys("t-restart").length > 0, 10_000);
    expect(firedKeys("t-restart")[0]!.payload).toEqual({ kept: true });
  });
});
