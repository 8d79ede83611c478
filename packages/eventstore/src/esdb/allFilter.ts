import { comparePositions, streamCategory, type AllFilter, type Position, type RecordedEvent } from "../port.js";
import { eventTypeFilter, excludeSystemEvents, streamNameFilter, type AllStreamResolvedEvent, type Filter } from "./client.js";
import { isSystemEvent, toRecordedEvent } from "./events.js";

/**
 * The server-side filter for a subscription. It only narrows what crosses the wire: `fromAll` still decides,
 * so that both reads and subscriptions follow the port's definition of a category exactly.
 */
export function toEsdbFilter(filter: AllFilter | undefined): Filter {
  if (filter && "eventTypePrefix" in filter && filter.eventTypePrefix.length > 0) {
    return eventTypeFilter({ prefixes: filter.eventTypePrefix });
  }
  if (filter && "streamCategory" in filter && filter.streamCategory.length > 0) {
    return streamNameFilter({ prefixes: filter.streamCategory.map((category) => `${category}-`) });
  }
  return excludeSystemEvents();
}

export function matchesAllFilter(event: Pick<RecordedEvent, "type" | "streamId">, filter: AllFilter | undefined): boolean {
  if (!filter) return true;
  if ("eventTypePrefix" in filter) return filter.eventTypePrefix.some((prefix) => event.type.startsWith(prefix));
  return filter.streamCategory.includes(streamCategory(event.streamId));
}

/**
 * The port's event for an entry of `$all`, or undefined when the port's reader must not see it: a system
 * event, an event the filter rejects, or one at or before `after` (EventStoreDB starts a read at the given
 * position inclusively; the port's `after` is exclusive).
 */
export function fromAll(
  resolved: AllStreamResolvedEvent,
  after: Position | undefined,
  filter: AllFilter | undefined,
): RecordedEvent | undefined {
  const event = resolved.event;
  if (!event || isSystemEvent(event) || !matchesAllFilter(event, filter)) return undefined;
  const recorded = toRecordedEvent(event);
  return after && comparePositions(recorded.position, after) <= 0 ? undefined : recorded;
}
