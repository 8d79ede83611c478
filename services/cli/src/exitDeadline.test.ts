import { spawn } from "node:child_process";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { signalArrival } from "./exitDeadline.js";

const built = pathToFileURL(join(import.meta.dirname, "../dist/exitDeadline.js")).href;

describe("armExitDeadline", () => {
  // The kill, not an exit at the end of the held loop, is what shows the deadline held; how long the child took
  // to start is the machine's load, so no time is asserted.
  it(
    "given a main thread held for 40 s, when the deadline passes, then the process is killed and says why",
    { timeout: 120_000 },
    async () => {
      const script = `
      const { armExitDeadline } = await import(${JSON.stringify(built)});
      armExitDeadline(300);
      const until = Date.now() + 40_000;
      while (Date.now() < until);
    `;
      const child = spawn(process.execPath, ["--input-type=module", "-e", script], { stdio: ["ignore", "ignore", "pipe"] });
      let stderr = "";
      child.stderr.on("data", (d) => (stderr += d));
      const signal = await new Promise<NodeJS.Signals | null>((resolve) => child.once("exit", (_code, s) => resolve(s)));
      expect(signal).toBe("SIGKILL");
      expect(stderr).toContain("stop ran out of time and the main thread was busy");
    },
  );

  it("given a process that exits on its own first, then the watchdog does not hold it open", async () => {
    const script = `
      const { armExitDeadline } = await import(${JSON.stringify(built)});
      armExitDeadline(60_000);
    `;
    const child = spawn(process.execPath, ["--input-type=module", "-e", script], { stdio: "ignore" });
    const [code, signal] = await new Promise<[number | null, NodeJS.Signals | null]>((resolve) =>
      child.once("exit", (c, s) => resolve([c, s])),
    );
    expect([code, signal]).toEqual([0, null]);
  });
});

describe("signalArrival", () => {
  const hold = (ms: number) => {
    const until = Date.now() + ms;
    while (Date.now() < until);
  };
  const turn = () => new Promise((resolve) => setTimeout(resolve, 150));

  it("given a loop held for a second, when asked at once, then the signal may have come at the hold's start", async () => {
    const arrival = signalArrival();
    await turn();
    const held = Date.now();
    hold(1_000);
    expect(arrival.earliest()).toBeLessThanOrEqual(held);
  });

  it("given a loop held for a second and then one beat, then the signal may still have come at the hold's start", async () => {
    const arrival = signalArrival();
    await turn();
    const held = Date.now();
    hold(1_000);
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(arrival.earliest()).toBeLessThanOrEqual(held);
  });
});
