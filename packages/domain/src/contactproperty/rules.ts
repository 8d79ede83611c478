import { DomainError } from "../decider.js";
import type { ContactPropertyType, ContactPropertyValue } from "./events.js";

export const CONTACT_PROPERTY_KEY_MAX = 50;

const keyPattern = /^[A-Za-z0-9_]+$/;
/** A contact's own fields (docs/wire-compatibility.md §6.9): a custom property by one of these names would shadow it. */
const builtInFields = new Set(["email", "first_name", "last_name", "unsubscribed"]);

const invalid = (message: string) => new DomainError("validation_error", message);

/** docs/wire-compatibility.md §6.9: alphanumeric and underscore, at most 50 characters; keys are case-sensitive. */
export function checkContactPropertyKey(key: string): DomainError | undefined {
  if (!keyPattern.test(key) || key.length > CONTACT_PROPERTY_KEY_MAX)
    return invalid(`\`key\` must be 1 to ${CONTACT_PROPERTY_KEY_MAX} ASCII letters, digits or underscores.`);
  if (builtInFields.has(key)) return invalid(`\`key\` \`${key}\` is a built-in contact field.`);
  return undefined;
}

/** A value fits its property when its JavaScript type is the property's type; a number must be finite. */
export function fitsPropertyType(type: ContactPropertyType, value: unknown): value is ContactPropertyValue {
  return type === "number" ? typeof value === "number" && Number.isFinite(value) : typeof value === "string";
}

export function checkFallbackValue(type: ContactPropertyType, fallback: unknown): DomainError | undefined {
  if (fallback === null || fitsPropertyType(type, fallback)) return undefined;
  return invalid(`\`fallback_value\` must be a ${type}, the property's \`type\`.`);
}
