/**
 * Work this process runs one at a time per key (an email's delivery, a broadcast's fan-out). A run asked
 * for a key already under way (a bus message redelivered when its ack wait ran out on a starved machine,
 * a timer firing beside it) waits for that run, whatever its outcome, and then runs, so it finds what the
 * first one recorded: two runs side by side would both act, a duplicate no crash caused.
 */
export interface OneRunPerKey {
  run(key: string, work: () => Promise<void>): Promise<void>;
  /** The keys with a run under way now. */
  underWay(): string[];
}

export function createOneRunPerKey(): OneRunPerKey {
  const running = new Map<string, Promise<void>>();
  return {
    async run(key, work) {
      for (let ahead = running.get(key); ahead; ahead = running.get(key)) await ahead.catch(() => {});
      const run = work();
      running.set(key, run);
      try {
        await run;
      } finally {
        if (running.get(key) === run) running.delete(key);
      }
    },
    underWay: () => [...running.keys()],
  };
}
