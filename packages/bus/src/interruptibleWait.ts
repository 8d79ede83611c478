/**
 * A wait between tries that can be cut short: `wait(ms)` resolves after `ms`, at once when `skip()` holds
 * as it starts, or as soon as `interrupt()` is called (a stop, a wake-up), whichever comes first.
 */
export function interruptibleWait(skip: () => boolean): { wait(ms: number): Promise<void>; interrupt(): void } {
  let interrupt: (() => void) | undefined;
  return {
    wait: (ms) =>
      new Promise<void>((resolve) => {
        if (skip()) return resolve();
        const done = () => {
          clearTimeout(timer);
          interrupt = undefined;
          resolve();
        };
        const timer = setTimeout(done, ms);
        interrupt = done;
      }),
    interrupt: () => interrupt?.(),
  };
}
