import type { FastifyInstance } from "fastify";

export interface PeriodicTask {
  /** Named in the log line when a run fails. */
  name: string;
  everyMs: number;
  run: () => Promise<unknown>;
}

/**
 * Runs housekeeping (pruning expired rows) while the app is up: once when it is ready, then every
 * `everyMs`. Each api instance runs its own; the tasks are idempotent deletes, so running them on
 * several instances at once costs a little and breaks nothing. Closing the app waits for a run in progress,
 * so the database is not closed under it.
 */
export function runPeriodically(app: FastifyInstance, task: PeriodicTask): void {
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> = Promise.resolve();
  const tick = () => {
    running = running.then(() =>
      task.run().then(
        () => undefined,
        (error: unknown) => app.log.error({ err: error, task: task.name }, "housekeeping task failed"),
      ),
    );
  };
  app.addHook("onReady", async () => {
    tick();
    timer = setInterval(tick, task.everyMs).unref();
  });
  app.addHook("onClose", async () => {
    clearInterval(timer);
    await running;
  });
}
