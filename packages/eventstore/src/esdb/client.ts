/**
 * The only file that imports the client library. `@kurrent/kurrentdb-client` is its renamed successor and a
 * superset of this API (`EventStoreDBClient` becomes `KurrentDBClient`), so switching to it means editing the
 * names on the right-hand side here and nothing else.
 */
export {
  EventStoreDBClient as EsdbClient,
  ANY,
  BACKWARDS,
  END,
  FORWARDS,
  NO_STREAM,
  START,
  STREAM_EXISTS,
  StreamNotFoundError,
  WrongExpectedVersionError,
  convertToCommandError,
  eventTypeFilter,
  excludeSystemEvents,
  jsonEvent,
  streamNameFilter,
} from "@eventstore/db-client";
export type {
  AllStreamResolvedEvent,
  AllStreamSubscription,
  AppendExpectedRevision,
  Filter,
  JSONType,
  ReadRevision,
  RecordedEvent as EsdbRecordedEvent,
  ResolvedEvent,
  StreamingRead,
} from "@eventstore/db-client";
