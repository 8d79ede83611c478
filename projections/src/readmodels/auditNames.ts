import type { RecordedEvent } from "@tidings/eventstore";

/** How an event names a key: by its stream's id, in its metadata, or somewhere in its data. */
export type AuditRefKind = "stream" | "request" | "correlation" | "causation" | "id" | "email";

export interface AuditName {
  key: string;
  kind: AuditRefKind;
}

/** Bounds that keep one event's rows few: a broadcast event listing thousands of ids indexes the first ones. */
export const MAX_DATA_DEPTH = 4;
export const MAX_NAMES_PER_EVENT = 32;

const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** A bare address, or the address inside `Name <address>`: whole values only, so an html body never matches. */
const mailbox = /^(?:[^<>]*<)?([^\s@<>"]+@[^\s@<>"]+\.[^\s@<>"]+)>?$/;

/** The address a value holds, lowercased, or undefined: the index is searched case-insensitively. */
export function emailAddressIn(value: string): string | undefined {
  if (value.length > 320) return undefined;
  return mailbox.exec(value.trim())?.[1]?.toLowerCase();
}

export const isUuid = (value: string): boolean => uuid.test(value);

/** The id part of a stream id (`email-<id>` → `<id>`), when it is a uuid. */
export function streamResourceId(streamId: string): string | undefined {
  const dash = streamId.indexOf("-");
  const id = dash < 0 ? undefined : streamId.slice(dash + 1);
  return id !== undefined && isUuid(id) ? id.toLowerCase() : undefined;
}

/**
 * What an event names (docs/architecture.md §4, the audit index): the id in its stream's id, the request,
 * correlation and causation ids of its metadata, and, from a bounded walk of its data, every uuid and
 * every email address held as a whole value. Each key once, the first way it was found kept. The owning
 * team's id is left out: every event of a team names it, so it would find everything and index nothing.
 * `withAddresses: false` leaves the addresses out (see the contact addresses table).
 */
export function auditNames(event: RecordedEvent, teamId: string | undefined, withAddresses: boolean): AuditName[] {
  const names = new Map<string, AuditRefKind>();
  const add = (key: string, kind: AuditRefKind) => {
    if (names.size < MAX_NAMES_PER_EVENT && key !== teamId && !names.has(key)) names.set(key, kind);
  };
  const ofStream = streamResourceId(event.streamId);
  if (ofStream) add(ofStream, "stream");
  const { requestId, correlationId, causationId } = event.metadata;
  if (typeof requestId === "string" && requestId) add(requestId.toLowerCase(), "request");
  if (typeof correlationId === "string" && correlationId) add(correlationId.toLowerCase(), "correlation");
  if (typeof causationId === "string" && causationId) add(causationId.toLowerCase(), "causation");
  const walk = (value: unknown, depth: number) => {
    if (names.size >= MAX_NAMES_PER_EVENT) return;
    if (typeof value === "string") {
      if (isUuid(value)) add(value.toLowerCase(), "id");
      else if (withAddresses) {
        const address = emailAddressIn(value);
        if (address) add(address, "email");
      }
    } else if (depth < MAX_DATA_DEPTH && Array.isArray(value)) {
      for (const item of value) walk(item, depth + 1);
    } else if (depth < MAX_DATA_DEPTH && value !== null && typeof value === "object") {
      for (const item of Object.values(value)) walk(item, depth + 1);
    }
  };
  walk(event.data, 0);
  return [...names].map(([key, kind]) => ({ key, kind }));
}

/** The team an event belongs to: its metadata's, or, for events written before metadata carried it, its data's. */
export function eventTeamId(event: RecordedEvent): string | undefined {
  const fromMetadata = event.metadata.teamId;
  if (typeof fromMetadata === "string" && isUuid(fromMetadata)) return fromMetadata.toLowerCase();
  const data = event.data as { teamId?: unknown } | null;
  const fromData = data && typeof data === "object" ? data.teamId : undefined;
  return typeof fromData === "string" && isUuid(fromData) ? fromData.toLowerCase() : undefined;
}
