import { fold, type Decider } from "@tidings/domain";
import type { EventStore } from "@tidings/eventstore";

/** An aggregate's state as its stream says now: what a write decides on, never a read model. */
export async function loadAggregate<Command, Event, State>(store: EventStore, streamId: string, decider: Decider<Command, Event, State>): Promise<State> {
  const events = await store.readStream(streamId);
  return fold(decider, events.map((e) => ({ type: e.type, data: e.data }) as Event));
}
