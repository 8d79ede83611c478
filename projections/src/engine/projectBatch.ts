import type { RecordedEvent } from "@tidings/eventstore";
import { BatchWrites, type TableWrites } from "./batchWrites.js";
import type { EventHandler, Projection } from "./projection.js";

const NONE: EventHandler[] = [];
const dispatchTables = new WeakMap<Projection, Map<string, EventHandler[]>>();

/**
 * The handlers an event goes through, looked up once per type: the runner sees every event of `$all`
 * (so its checkpoint passes them all) and most of them concern a given projection not at all.
 */
export function handlersFor(projection: Projection, type: string): EventHandler[] {
  let table = dispatchTables.get(projection);
  if (!table) dispatchTables.set(projection, (table = new Map()));
  let handlers = table.get(type);
  if (!handlers) {
    const own = projection.handlers[type];
    const any = type === "*" ? undefined : projection.handlers["*"];
    handlers = [own, any].filter((h): h is EventHandler => h !== undefined);
    if (handlers.length === 0) handlers = NONE;
    table.set(type, handlers);
  }
  return handlers;
}

/** Runs a batch of events through the handlers, in order, into folded writes. Pure: no I/O. */
export function projectBatch(projection: Projection, events: RecordedEvent[]): TableWrites[] {
  const writes = new BatchWrites(projection);
  for (const event of events) {
    for (const handler of handlersFor(projection, event.type)) handler(event, writes);
  }
  return writes.drain();
}
