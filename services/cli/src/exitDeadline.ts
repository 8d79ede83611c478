import { Worker } from "node:worker_threads";

/**
 * A deadline for a stopping process that holds even while its main thread is busy. Embedded mode runs
 * PGlite in the main thread, and one statement on a starved CPU holds the event loop for up to a second
 * or more (0.9 s measured at a load of 12 on two cores), so both the SIGTERM handler and a main-thread
 * timer ran seconds late (docs/operations.md, on SIGTERM).
 */
const watchdog = `
const { workerData } = process.getBuiltinModule("node:worker_threads");
const { writeSync } = process.getBuiltinModule("node:fs");
setTimeout(() => {
  writeSync(2, "tidings: stop ran out of time and the main thread was busy; killing the process\\n");
  process.kill(process.pid, "SIGKILL");
}, workerData.ms);
`;

/** A thread that kills the process in `ms` unless it has exited by then; it does not keep the process alive. */
export function armExitDeadline(ms: number): void {
  new Worker(watchdog, { eval: true, execArgv: [], workerData: { ms } }).unref();
}

/**
 * The earliest time a signal handled now may have come. A signal that comes while the event loop is held
 * is handled once it turns again, seconds late under load; counting the deadline from before the hold
 * keeps the process's exit within the deadline of the signal. A 100 ms beat tells a hold: one under way
 * (no beat for a while), or one that ended just now (the last two beats far apart: libuv may run the beat's
 * timer before the signal's handler in the turn after the hold).
 */
export function signalArrival(): { earliest(): number } {
  const heldAfter = 250;
  let previous = Date.now();
  let latest = previous;
  setInterval(() => {
    previous = latest;
    latest = Date.now();
  }, 100).unref();
  return {
    earliest() {
      const now = Date.now();
      if (now - latest > heldAfter) return latest;
      if (latest - previous > heldAfter) return previous;
      return now;
    },
  };
}
