import { DomainError } from "../decider.js";
import type { ContactPropertyType, ContactPropertyValue } from "../contactproperty/events.js";
import { fitsPropertyType } from "../contactproperty/rules.js";
import { parseMailbox } from "../email/rules/address.js";

/** RFC 5321's limit on a forward path. */
export const CONTACT_EMAIL_MAX = 254;
export const CONTACT_NAME_MAX = 255;

const invalid = (message: string) => new DomainError("validation_error", message);

/** How a contact's email is kept and compared: trimmed, lower-cased (one contact per address and team). */
export const normalContactEmail = (email: string) => email.trim().toLowerCase();

export function checkContactEmail(email: string): DomainError | undefined {
  if (email.trim() === "") return new DomainError("missing_required_field", "Missing `email` field.");
  const mailbox = parseMailbox(email);
  if (!mailbox || mailbox.name !== null || email.trim().length > CONTACT_EMAIL_MAX)
    return invalid("Invalid `email` field. The email address needs to follow the `email@example.com` format.");
  return undefined;
}

export function checkContactName(field: "first_name" | "last_name", name: string | null): DomainError | undefined {
  if (name !== null && name.length > CONTACT_NAME_MAX) return invalid(`\`${field}\` must be at most ${CONTACT_NAME_MAX} characters.`);
  return undefined;
}

/** The types of the team's contact properties, by key: what a contact's values are checked against. */
export type PropertyTypes = Readonly<Record<string, ContactPropertyType | undefined>>;

/**
 * docs/wire-compatibility.md §6.8: a value must name an existing contact property and match its type. Null clears a value,
 * so it needs only the property to exist.
 */
export function checkContactProperties(values: Readonly<Record<string, unknown>>, types: PropertyTypes): DomainError | undefined {
  for (const [key, value] of Object.entries(values)) {
    const type = Object.hasOwn(types, key) ? types[key] : undefined;
    if (type === undefined)
      return invalid(`\`properties.${key}\` is not a contact property of this team; create it with POST /contact-properties first.`);
    if (value !== null && !fitsPropertyType(type, value)) return invalid(`\`properties.${key}\` must be a ${type}.`);
  }
  return undefined;
}

/** The values after a change: given values replace, nulls clear, the rest stay. */
export function applyPropertyChanges(
  current: Readonly<Record<string, ContactPropertyValue>>,
  changes: Readonly<Record<string, ContactPropertyValue | null>>,
): Record<string, ContactPropertyValue> {
  const next: Record<string, ContactPropertyValue> = { ...current };
  for (const [key, value] of Object.entries(changes)) {
    if (value === null) delete next[key];
    else next[key] = value;
  }
  return next;
}

/**
 * What a contact's properties render as: its own value wherever it has one, else the property's fallback
 * (docs/wire-compatibility.md §6.9). Keys of properties neither set nor with a fallback are absent.
 */
export function renderedContactProperties(
  own: Readonly<Record<string, ContactPropertyValue>>,
  fallbacks: Readonly<Record<string, ContactPropertyValue | null>>,
): Record<string, ContactPropertyValue> {
  const rendered: Record<string, ContactPropertyValue> = {};
  for (const [key, fallback] of Object.entries(fallbacks)) if (fallback !== null) rendered[key] = fallback;
  return { ...rendered, ...own };
}
