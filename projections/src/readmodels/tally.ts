/**
 * The columns of a tally: how often something happened (`clicks`), how many of those times by machines
 * such as link scanners and privacy proxies (`machine_clicks`), and when it first and last happened
 * (`first_clicked_at`, `last_clicked_at`). Every event adds one to the row, so they fold in any order.
 */
type TallyColumns<Count extends string, Verb extends string> = Record<Count | `machine_${Count}`, { type: "bigint"; merge: "add" }> &
  Record<`first_${Verb}_at`, { type: "timestamptz"; merge: "min" }> &
  Record<`last_${Verb}_at`, { type: "timestamptz"; merge: "max" }>;

/** A tally's columns, named after what it counts (`clicks`) and the verb of its times (`clicked`). */
export function tallyColumns<Count extends string, Verb extends string>(count: Count, verb: Verb): TallyColumns<Count, Verb> {
  return {
    [count]: { type: "bigint", merge: "add" },
    [`machine_${count}`]: { type: "bigint", merge: "add" },
    [`first_${verb}_at`]: { type: "timestamptz", merge: "min" },
    [`last_${verb}_at`]: { type: "timestamptz", merge: "max" },
  } as TallyColumns<Count, Verb>;
}

/** What one event adds to a tally of `tallyColumns(count, verb)`: once, by a machine or not, at `at`. */
export const tallyOnce = (count: string, verb: string, machine: boolean, at: string) => ({
  [count]: 1,
  [`machine_${count}`]: machine ? 1 : 0,
  [`first_${verb}_at`]: at,
  [`last_${verb}_at`]: at,
});
