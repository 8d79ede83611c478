import { fold, type Decider } from "@tidings/domain";
import type { EventStore } from "@tidings/eventstore";

/** An aggregate's state as its stream says now: what a saga or a lookup decides from, never a read model (DESIGN §1). */
export async function loadState<Event extends { type: string; data: unknown }, State>(
  store: EventStore,
  streamId: string,
  decider: Pick<Decider<unknown, Event, State>, "initialState" | "evolve">,
): Promise<State> {
  const recorded = await store.readStream(streamId);
  return fold(decider, recorded.map((e) => ({ type: e.type, data: e.data }) as Event));
}
