import type { RecordedEvent } from "@tidings/eventstore";

/** The payload of the `Type` events of `Event`, a union of events such as `TopicEvent`. */
export type EventData<Event extends { type: string; data: unknown }, Type extends Event["type"]> = Extract<Event, { type: Type }>["data"];

/**
 * How a read model reads the payloads of the events it handles: `const dataOf = eventDataOf<TopicEvent>()`,
 * then `dataOf<"TopicCreated">(event)` in the handler registered for `TopicCreated`. The store hands every
 * handler an untyped event; the type a handler is registered under is what makes the cast true.
 */
export const eventDataOf =
  <Event extends { type: string; data: unknown }>() =>
  <Type extends Event["type"]>(event: RecordedEvent): EventData<Event, Type> =>
    event.data as EventData<Event, Type>;
