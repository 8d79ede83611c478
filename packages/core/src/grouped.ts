export interface Grouping {
  /** Groups in flight at once; calls arriving while all are busy wait and go together in the next. */
  inFlight: number;
  /** At most this many calls in one group. */
  max: number;
}

/**
 * Calls that arrive while every group is in flight wait, then go together: `many` answers a list of inputs
 * with one answer per input, in order. A call that finds a group free goes at once, alone, so a quiet
 * caller waits for nothing, and a busy one pays one round trip per group instead of one per call. A group
 * that fails fails each call in it.
 */
export function grouped<In, Out>(many: (inputs: In[]) => Promise<Out[]>, { inFlight, max }: Grouping): (input: In) => Promise<Out> {
  const queue: { input: In; resolve(out: Out): void; reject(error: unknown): void }[] = [];
  let busy = 0;

  const run = async (group: typeof queue) => {
    try {
      const outs = await many(group.map((call) => call.input));
      group.forEach((call, i) => call.resolve(outs[i]!));
    } catch (error) {
      for (const call of group) call.reject(error);
    }
  };

  const pump = () => {
    while (busy < inFlight && queue.length > 0) {
      busy++;
      void run(queue.splice(0, max)).finally(() => {
        busy--;
        pump();
      });
    }
  };

  return (input) =>
    new Promise<Out>((resolve, reject) => {
      queue.push({ input, resolve, reject });
      pump();
    });
}

/**
 * The rows of one statement over a group, handed back to each input: `ordOf` names the input a row answers
 * (its index in the group, as `WITH ORDINALITY` minus one gives it). An input no row names gets none.
 */
export function rowsByInput<Row, Out>(count: number, rows: readonly Row[], ordOf: (row: Row) => number, toOut: (row: Row) => Out): Out[][] {
  const byInput = Array.from({ length: count }, (): Out[] => []);
  for (const row of rows) byInput[ordOf(row)]!.push(toOut(row));
  return byInput;
}
