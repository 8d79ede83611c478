/** An event as a payload builder reads it: its type and data, as stored (and, for the event itself, who caused it). */
export interface SourceEvent {
  type: string;
  data: unknown;
  metadata?: { actor?: string };
}

/** What the body of a delivery holds (docs/wire-compatibility.md §8.2): `{type, created_at, data}`, `created_at` in ISO 8601. */
export interface WebhookPayload {
  type: string;
  created_at: string;
  data: Record<string, unknown>;
}

export interface PayloadContext {
  /** The Message-ID the delivery saga gives an email (`<id@host>`), so payloads show the one receivers saw. */
  messageIdOf(emailId: string): string;
}

/**
 * Builds the payload of one event from the event and its stream up to and including it (`history`), so a
 * payload shows the state as of the event, never as of the delivery. Null: this event has no webhook type.
 */
export type PayloadBuilder = (event: SourceEvent, history: SourceEvent[], context: PayloadContext) => WebhookPayload | null;

/**
 * One category of webhook event types (docs/wire-compatibility.md §8.1), in a file of its own: the types a webhook may
 * subscribe to, and the builders turning the events of one stream category into their payloads. A
 * category whose aggregate does not exist yet lists its types with no builders.
 */
export interface WebhookEventCategory {
  /** The stream category the builders read (`email` for `email-…` streams). */
  streamCategory: string;
  types: readonly string[];
  /** Domain event type → builder. */
  payloads: Readonly<Record<string, PayloadBuilder>>;
  /**
   * The types the builders produce when they are not `types`: a category whose events build a type
   * listed by another (the erasure stream's `contact.deleted`). The fan-out skips an event early when no
   * webhook takes any of them.
   */
  produces?: readonly string[];
}

/** The webhook types a category's events can become. */
export const typesProducedBy = (category: WebhookEventCategory): readonly string[] => category.produces ?? category.types;

/** Event times are stored in the wire format; payloads carry ISO 8601 (docs/wire-compatibility.md §2.2). */
export function isoTime(text: string): string {
  const m = /^(\d{4}-\d{2}-\d{2}) (\d{2}:\d{2}:\d{2})\.(\d{3})\d{3}\+00$/.exec(text);
  return m ? `${m[1]}T${m[2]}.${m[3]}Z` : text;
}
