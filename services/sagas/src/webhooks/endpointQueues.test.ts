import { setTimeout as sleep } from "node:timers/promises";
import { describe, expect, it } from "vitest";
import { deferred } from "@tidings/core/testing";
import { createEndpointQueues } from "./endpointQueues.js";

/** Queues whose runs never fail here, so an error reaching `onError` is none of these tests' business. */
const queuesRunning = (perEndpoint: number, run: Parameters<typeof createEndpointQueues>[0]["run"]) =>
  createEndpointQueues({ perEndpoint, run, onError: () => {} });

describe("endpoint queues", () => {
  it("keeps a stuck endpoint from delaying another", async () => {
    const stuck = deferred();
    const done: string[] = [];
    const queues = queuesRunning(2, async (id) => {
      if (id.startsWith("slow")) await stuck.promise;
      done.push(id);
    });
    for (let i = 0; i < 5; i++) queues.enqueue("slow-endpoint", `slow-${i}`);
    for (let i = 0; i < 3; i++) queues.enqueue("fast-endpoint", `fast-${i}`);
    await sleep(10);
    expect(done).toEqual(["fast-0", "fast-1", "fast-2"]);
    stuck.resolve();
    await sleep(10);
    expect(done.filter((id) => id.startsWith("slow"))).toHaveLength(5);
    await queues.stop();
  });

  it("runs at most perEndpoint at once for one endpoint, and a waiting delivery once", async () => {
    let running = 0;
    let peak = 0;
    const runs: string[] = [];
    const queues = queuesRunning(2, async (id) => {
      runs.push(id);
      peak = Math.max(peak, ++running);
      await sleep(5);
      running--;
    });
    for (const id of ["a", "b", "c", "d", "d", "d"]) queues.enqueue("e", id);
    await sleep(40);
    expect(peak).toBe(2);
    expect(runs).toEqual(["a", "b", "c", "d"]);
    await queues.stop();
  });

  it("runs a delivery once more when asked for while it runs", async () => {
    const first = deferred();
    const runs: string[] = [];
    const queues = queuesRunning(1, async (id) => {
      runs.push(id);
      if (runs.length === 1) await first.promise;
    });
    queues.enqueue("e", "x");
    queues.enqueue("e", "x");
    first.resolve();
    await sleep(10);
    expect(runs).toEqual(["x", "x"]);
    await queues.stop();
  });

  it("hands a slot back once the endpoint has answered, while the run still records, and holds the delivery till it ends", async () => {
    const recording = deferred();
    const posted: string[] = [];
    const queues = queuesRunning(1, async (id, _key, _known, leave) => {
      posted.push(id);
      leave();
      leave();
      if (id === "a") await recording.promise;
    });
    queues.enqueue("e", "a");
    queues.enqueue("e", "b");
    queues.enqueue("e", "c");
    await sleep(10);
    expect(posted).toEqual(["a", "b", "c"]);
    expect(queues.holds("a")).toBe(true);
    queues.enqueue("e", "a");
    recording.resolve();
    await sleep(10);
    expect(posted).toEqual(["a", "b", "c", "a"]);
    expect(queues.holds("a")).toBe(false);
    await queues.stop();
  });
});
