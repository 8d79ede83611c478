import { describe, expect, it } from "vitest";
import { settledWrites, testMode } from "@tidings/postgres";
import { formatPosition, START } from "@tidings/eventstore";
import { createCheckpointWaiter } from "./checkpointWaiter.js";
import { readCheckpoints } from "./checkpoints.js";
import type { Projection } from "./projection.js";
import type { RunningProjections, StartProjectionsOptions } from "./runner.js";
import { projectionStatus } from "./status.js";
import { storeOnTestDatabase } from "../testing/storeOnTestDatabase.js";
import { aCountingProjection, aName, anEventStore, appendEvents, countedType, countsOf, until } from "../testing/testBuilders.js";

const env = storeOnTestDatabase();

const run = (projections: Projection[], overrides: Partial<StartProjectionsOptions> = {}) =>
  env.start(projections, { lockRetryMs: 100, retryMs: 50, ...overrides });

describe(`projection runner (${testMode()})`, () => {
  it("rolls back the read-model writes and the checkpoint together when a batch fails in the database", async () => {
    const name = aName();
    await appendEvents(env.store, countedType(name), 3, 2);
    const head = await appendEvents(env.store, `Poisoned.${name}`, 1, 1);
    const running = await run([aCountingProjection(name, { poisonType: `Poisoned.${name}` })], { batchSize: 10_000, batchMs: 200 });
    try {
      await until(() => running.status()[0]!.state === "failed", 15_000, "the batch to fail");
      expect(running.status()[0]!.lastError).toMatch(/null value/);
      expect(await countsOf(env.database, name)).toEqual(new Map());
      const [live] = await readCheckpoints(env.database.db, [name]);
      expect(formatPosition(live!.position)).toBe(formatPosition(START));
      expect(await running.waitFor(head, 300)).toBe(false);
    } finally {
      await running.stop();
    }
  });

  it("rolls back the batch when a handler throws, and applies it once the handler succeeds", async () => {
    const name = aName();
    const head = await appendEvents(env.store, countedType(name), 2, 3);
    let failing = true;
    const projection = aCountingProjection(name, {
      beforeEach: () => {
        if (failing) throw new Error("handler refused");
      },
    });
    const running = await run([projection]);
    try {
      await until(() => running.status()[0]!.lastError === "handler refused", 15_000, "the handler to fail");
      expect(await countsOf(env.database, name)).toEqual(new Map());
      failing = false;
      expect(await running.waitFor(head, 15_000)).toBe(true);
      expect([...(await countsOf(env.database, name)).values()]).toEqual([3, 3]);
    } finally {
      await running.stop();
    }
  });

  it("resumes from its checkpoint after a restart without applying any event twice", async () => {
    const name = aName();
    const projection = aCountingProjection(name);
    const first = await run([projection]);
    await env.appendProjected(first, name, 4, 5);
    await first.stop();

    const secondHead = await appendEvents(env.store, countedType(name), 2, 5);
    const second = await run([projection]);
    try {
      expect(await second.waitFor(secondHead, 15_000)).toBe(true);
      const counts = await countsOf(env.database, name);
      expect(counts.size).toBe(6);
      expect([...counts.values()].every((n) => n === 5)).toBe(true);
      // The checkpoint's NOTIFY can reach the waiter before the commit's own answer reaches the runner,
      // which counts the batch only then.
      await expect.poll(() => second.status()[0]!.eventsApplied).toBe(10);
    } finally {
      await second.stop();
    }
  });

  it("waitFor resolves once the write is projected, and answers false when it cannot be", async () => {
    const name = aName();
    const running = await run([aCountingProjection(name)]);
    try {
      const position = await env.appendProjected(running, name, 1, 1);
      expect((await countsOf(env.database, name)).size).toBe(1);
      const beyond = { commit: position.commit + 1_000_000n, prepare: position.prepare };
      const started = Date.now();
      expect(await running.waitFor(beyond, 300)).toBe(false);
      expect(Date.now() - started).toBeGreaterThanOrEqual(290);
    } finally {
      await running.stop();
    }
  });

  it("waitFor works in a process that runs no projection, and times out while none runs", async () => {
    const name = aName();
    const apiDatabase = testMode() === "server" ? await env.test.reopen() : env.database;
    const waiter = await createCheckpointWaiter(apiDatabase, [name], { pollMs: 100 });
    try {
      const position = await appendEvents(env.store, countedType(name), 1, 2);
      expect(await waiter.waitFor(position, 300)).toBe(false);
      const running = await run([aCountingProjection(name)]);
      try {
        expect(await waiter.waitFor(position, 15_000)).toBe(true);
      } finally {
        await running.stop();
      }
    } finally {
      await waiter.close();
    }
  });

  it("waitFor narrowed to some of the watched projections resolves once they have applied the position, whatever the others", async () => {
    const [running, idle] = [aName(), aName()];
    const waiter = await createCheckpointWaiter(env.database, [running, idle], { pollMs: 100 });
    const projections = await run([aCountingProjection(running)]);
    try {
      const position = await appendEvents(env.store, countedType(running), 1, 1);
      expect(await waiter.waitFor(position, 15_000, [running])).toBe(true);
      expect(await waiter.waitFor(position, 300)).toBe(false);
      await expect(waiter.waitFor(position, 300, [aName()])).rejects.toThrow(/does not watch/);
    } finally {
      await projections.stop();
      await waiter.close();
    }
  });
});

describe(`projection status (${testMode()})`, () => {
  it("reports the checkpoint, the lag in events and seconds, and whether a runner is live", async () => {
    const name = aName();
    const projection = aCountingProjection(name);
    const running = await run([projection]);
    const head = await env.appendProjected(running, name, 1, 1);
    const [live] = await projectionStatus({ store: env.store, database: env.database, projections: [projection] });
    expect(live).toMatchObject({ name, version: 1, liveVersion: 1, state: "live", lagEvents: 0, lagSeconds: 0 });
    await running.stop();

    await appendEvents(env.store, countedType(name), 3, 2);
    await new Promise((resolve) => setTimeout(resolve, 50));
    await settledWrites(env.database);
    const [stopped] = await projectionStatus({ store: env.store, database: env.database, projections: [projection], lagCap: 4 });
    expect(stopped).toMatchObject({ state: "stopped", lagEvents: 4, lagCapped: true });
    expect(stopped!.lagSeconds).toBeGreaterThan(0.04);
    expect(stopped!.checkpoint).toBe(formatPosition(head));
  });
});

describe(`projection runner leadership (${testMode()})`, () => {
  it("keeps a second instance idle while the first holds the lock, and lets it take over when the first stops", async () => {
    const name = aName();
    const projection = aCountingProjection(name);
    // In server mode each instance has its own connections, as two processes would.
    const otherDatabase = testMode() === "server" ? await env.test.reopen() : env.database;
    const otherStore = testMode() === "server" ? await anEventStore(otherDatabase) : env.store;
    const instances: RunningProjections[] = [
      await run([projection]),
      await run([projection], { store: otherStore, database: otherDatabase }),
    ];
    try {
      await env.appendProjected(instances[0]!, name, 3, 4);
      await new Promise((resolve) => setTimeout(resolve, 300));
      const roles = instances.map((i) => i.status()[0]!);
      expect(roles.map((s) => s.role).sort()).toEqual(["leader", "standby"]);
      const leader = roles.findIndex((s) => s.role === "leader");
      const standby = 1 - leader;
      expect(roles[standby]!.eventsApplied).toBe(0);
      expect(roles[leader]!.eventsApplied).toBeGreaterThanOrEqual(12);

      await instances[leader]!.stop();
      await env.appendProjected(instances[standby]!, name, 1, 4);
      expect(instances[standby]!.status()[0]!.role).toBe("leader");
      const counts = await countsOf(env.database, name);
      expect(counts.size).toBe(4);
      expect([...counts.values()].every((n) => n === 4)).toBe(true);
    } finally {
      await Promise.all(instances.map((i) => i.stop()));
      if (otherStore !== env.store) await otherStore.close();
    }
  });
});
