import type { EventOf, EventTypeOf, StreamCategory } from "@tidings/domain";
import type { RecordedEvent } from "@tidings/eventstore";
import { eventSubject, fromForwardedEvent, type ForwardedEvent } from "./forwardedEvent.js";
import type { Bus, BusMessage, Consumer, ConsumerOptions } from "./port.js";

/** A recorded event of one category and type, as the forwarder published it: its data typed by its kind. */
export type ConsumedEvent<Category extends StreamCategory, Type extends EventTypeOf<Category>> = Omit<RecordedEvent, "type" | "data"> & {
  type: Type;
  data: EventOf<Category, Type>["data"];
};

export interface EventConsumerOptions<Category extends StreamCategory, Type extends EventTypeOf<Category>> extends Omit<
  ConsumerOptions,
  "filterSubject"
> {
  category: Category;
  /** One event type of the category; omitted, every type of it (in every lane). */
  type?: Type;
  /** Only the events of the type that their appender put in this lane (`eventSubject`); omitted, those in none. */
  lane?: string;
}

/**
 * A saga's durable consumer of forwarded events: it subscribes to the subject the forwarder publishes them
 * to (`eventSubject`) and hands the handler each event typed by that subject. The one place a bus message
 * becomes a domain event: the subject says what the body is, since the forwarder publishes every event of
 * `$all` to its category and type.
 */
export function consumeEvents<Category extends StreamCategory, Type extends EventTypeOf<Category> = EventTypeOf<Category>>(
  bus: Bus,
  options: EventConsumerOptions<Category, Type>,
  handler: (event: ConsumedEvent<Category, Type>, message: BusMessage) => Promise<void>,
): Promise<Consumer> {
  const { category, type, lane, ...consumer } = options;
  return bus.consume(
    { ...consumer, filterSubject: eventSubject(category, type ?? ">", type === undefined ? undefined : lane) },
    (message) => handler(fromForwardedEvent(message.data as ForwardedEvent) as ConsumedEvent<Category, Type>, message),
  );
}
