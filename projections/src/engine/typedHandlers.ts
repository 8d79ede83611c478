import type { RecordedEvent } from "@tidings/eventstore";
import type { BatchContext, EventHandler } from "./projection.js";

/** The events a read model handles, as the domain declares them: a union such as `TopicEvent`. */
type Events = { type: string; data: unknown };

/** The payload of the `Type` events of `Event`. */
export type EventData<Event extends Events, Type extends Event["type"]> = Extract<Event, { type: Type }>["data"];

/** A handler that is given its event's payload, typed by the event type it is registered under. */
export type TypedHandler<Data> = (data: Data, context: BatchContext, event: RecordedEvent) => void;

/**
 * A read model's handlers, each given the payload of its event type:
 * `handlersOf<TopicEvent>({ TopicCreated(data, context) { … } })`. The store hands the engine untyped
 * events; the type a handler is registered under is what makes its payload's type true, so this is the
 * one place that says so.
 */
export function handlersOf<Event extends Events>(handlers: {
  [Type in Event["type"]]?: TypedHandler<EventData<Event, Type>>;
}): Record<string, EventHandler> {
  const byType = handlers as Record<string, TypedHandler<unknown>>;
  return Object.fromEntries(
    Object.entries(byType).map(([type, handle]): [string, EventHandler] => [type, (event, context) => handle(event.data, context, event)]),
  );
}
