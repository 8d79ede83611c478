import { Worker } from "node:worker_threads";

/**
 * A deadline for a stopping process that holds even while its main thread is busy. Embedded mode runs
 * PGlite in the main thread, and one statement on a starved CPU can hold the event loop for seconds, so
 * a main-thread timer alone fired 2-3 s late under the test suite's load (docs/operations.md, on SIGTERM).
 * This thread waits on its own and kills the process when the main thread's own exit has not come.
 */
const watchdog = `
const { workerData } = process.getBuiltinModule("node:worker_threads");
const { writeSync } = process.getBuiltinModule("node:fs");
setTimeout(() => {
  writeSync(2, "tidings: stop ran out of time and the main thread was busy; killing the process\\n");
  process.kill(process.pid, "SIGKILL");
}, workerData.ms);
`;

export function armExitDeadline(ms: number): void {
  new Worker(watchdog, { eval: true, execArgv: [], workerData: { ms } }).unref();
}
