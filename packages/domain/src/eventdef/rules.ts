import { DomainError } from "../decider.js";
import type { EventSchema } from "./events.js";
import { eventFieldTypes } from "./events.js";

export const EVENT_NAME_MAX = 255;
export const EVENT_SCHEMA_FIELDS_MAX = 100;
const reservedPrefixes = ["resend:", "tidings:"];
/** Dotted words: `user.signed_up`, `order.paid`, `trial-ended`. */
const namePattern = /^[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*$/;
const fieldPattern = /^[A-Za-z0-9_-]{1,100}$/;

const invalid = (message: string) => new DomainError("validation_error", message);

export function checkEventName(name: string): DomainError | undefined {
  const prefix = reservedPrefixes.find((p) => name.toLowerCase().startsWith(p));
  if (prefix) return invalid(`The \`name\` field cannot start with the reserved prefix \`${prefix}\`.`);
  if (name.length === 0 || name.length > EVENT_NAME_MAX) return invalid(`The \`name\` field must be 1 to ${EVENT_NAME_MAX} characters.`);
  if (!namePattern.test(name))
    return invalid("The `name` field must be dotted words of letters, digits, `_` or `-`, such as `user.signed_up`.");
  return undefined;
}

export function checkEventSchema(schema: EventSchema): DomainError | undefined {
  if (schema === null) return undefined;
  const fields = Object.entries(schema);
  if (fields.length > EVENT_SCHEMA_FIELDS_MAX) return invalid(`The \`schema\` field must have at most ${EVENT_SCHEMA_FIELDS_MAX} fields.`);
  for (const [field, type] of fields) {
    if (!fieldPattern.test(field)) return invalid(`The \`schema\` field \`${field}\` must be 1 to 100 letters, digits, \`_\` or \`-\`.`);
    if (!eventFieldTypes.includes(type)) return invalid(`The \`schema.${field}\` type must be one of ${eventFieldTypes.join(", ")}.`);
  }
  return undefined;
}

const isoDate = /^\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}(:?\d{2})?)?)?$/;

function matches(type: string, value: unknown): boolean {
  switch (type) {
    case "string":
      return typeof value === "string";
    case "number":
      return typeof value === "number" && Number.isFinite(value);
    case "boolean":
      return typeof value === "boolean";
    default:
      return typeof value === "string" && isoDate.test(value) && !Number.isNaN(Date.parse(value.replace(" ", "T")));
  }
}

/**
 * A sent payload against its event's schema: every declared field must be there with its type (a `date` is
 * an ISO-8601 string); fields the schema does not declare pass through untouched.
 */
export function checkEventPayload(schema: EventSchema, payload: Readonly<Record<string, unknown>>): DomainError | undefined {
  if (schema === null) return undefined;
  for (const [field, type] of Object.entries(schema)) {
    const value = payload[field];
    if (value === undefined || value === null)
      return new DomainError("validation_error", `Missing \`payload.${field}\`: the event's schema declares it.`);
    if (!matches(type, value)) {
      const expected = type === "date" ? "an ISO-8601 date" : `a ${type}`;
      return invalid(`The \`payload.${field}\` field must be ${expected}.`);
    }
  }
  return undefined;
}
