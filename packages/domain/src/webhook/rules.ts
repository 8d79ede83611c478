import { DomainError } from "../decider.js";
import { isWebhookEventType } from "./catalogue/index.js";

export const WEBHOOK_ENDPOINT_MAX = 2048;

const invalid = (message: string) => new DomainError("validation_error", message);

/**
 * An endpoint is an absolute https URL. Plain http is accepted only where the command says so (`allowHttp`:
 * embedded mode, the development setup, or WEBHOOK_ALLOW_PRIVATE=true), because a signed payload sent in
 * clear text can be read on the way.
 */
export function checkEndpoint(endpoint: string, allowHttp: boolean): DomainError | undefined {
  if (endpoint.length > WEBHOOK_ENDPOINT_MAX) return invalid(`The \`endpoint\` field must be at most ${WEBHOOK_ENDPOINT_MAX} characters.`);
  let url: URL;
  try {
    url = new URL(endpoint);
  } catch {
    return invalid("The `endpoint` field must be an absolute URL.");
  }
  if (url.protocol === "https:") return undefined;
  if (url.protocol === "http:" && allowHttp) return undefined;
  return invalid(allowHttp ? "The `endpoint` field must be an http or https URL." : "The `endpoint` field must be an https URL.");
}

/** A non-empty list of known types (docs/wire-compatibility.md §8.1); the 422 names the first unknown one. */
export function checkEventTypes(events: string[]): DomainError | undefined {
  if (events.length === 0) return invalid("The `events` field must list at least 1 event type.");
  const bad = events.findIndex((type) => !isWebhookEventType(type));
  if (bad >= 0) return invalid(`\`events[${bad}]\`: \`${events[bad]}\` is not a known event type.`);
  return undefined;
}

/** The same type twice subscribes once; the order given is kept. */
export const distinctEventTypes = (events: string[]) => [...new Set(events)];
