/**
 * The shape of every aggregate (docs/architecture.md §3). `decide` is pure: the command carries `now`
 * and any generated ids, so the same command on the same state always yields the same events.
 */
export interface Decider<Command, Event, State> {
  initialState: State;
  evolve(state: State, event: Event): State;
  decide(command: Command, state: State): Event[] | DomainError;
}

/**
 * A rule the command broke. `name` is stable (the contract's error names); the API maps it once, in one
 * table, to a status. A decider returns it as a value, so tests can compare it like events.
 */
export class DomainError {
  constructor(
    readonly name: string,
    readonly message: string,
  ) {}
}

export const isDomainError = (value: unknown): value is DomainError => value instanceof DomainError;

/** Folds events into state: the same function serves command handling, audits and tests. */
export function fold<Event, State>(decider: Pick<Decider<unknown, Event, State>, "initialState" | "evolve">, events: Event[]): State {
  return events.reduce(decider.evolve, decider.initialState);
}
