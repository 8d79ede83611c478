import { renderPlaceholders, type PlaceholderValue } from "../template/placeholders.js";

/** The contact a broadcast email is rendered for, as the audience read model holds it. */
export interface BroadcastContact {
  email: string;
  firstName: string | null;
  lastName: string | null;
  properties: Readonly<Record<string, PlaceholderValue | null>>;
}

export interface PersonalizeInput {
  subject: string;
  html: string | null;
  text: string | null;
  contact: BroadcastContact;
  /** Each contact property's own `fallback_value`, by key: used when a placeholder gives no inline fallback. */
  propertyFallbacks: Readonly<Record<string, PlaceholderValue | null>>;
  unsubscribeUrl: string;
}

export interface PersonalizedParts {
  subject: string;
  html: string | null;
  text: string | null;
}

/** docs/wire-compatibility.md §9: the legacy upper-case names of the contact fields. */
const legacyNames: Record<string, string> = { FIRST_NAME: "first_name", LAST_NAME: "last_name", EMAIL: "email" };
const unsubscribeKeys = ["SERVICE_UNSUBSCRIBE_URL", "RESEND_UNSUBSCRIBE_URL", "UNSUBSCRIBE_URL"];

function fieldOf(key: string): string | undefined {
  if (key.startsWith("contact.")) return key.slice("contact.".length);
  return legacyNames[key];
}

/**
 * One recipient's subject, html and text (docs/wire-compatibility.md §9): `{{{contact.<field>|fallback}}}` and the legacy
 * `{{{FIRST_NAME|fallback}}}`, a property's own fallback when none is inline, and the contact's signed
 * unsubscribe URL. A contact field with no value anywhere renders empty rather than as the raw braces;
 * any other placeholder is left as written, since it is the sender's text.
 */
export function personalizeBroadcast(input: PersonalizeInput): PersonalizedParts {
  const { contact } = input;
  const standard: Record<string, PlaceholderValue | null> = {
    first_name: contact.firstName,
    last_name: contact.lastName,
    email: contact.email,
  };
  const values: Record<string, PlaceholderValue | null | undefined> = {};
  const lookup = (key: string) => {
    if (unsubscribeKeys.includes(key)) return input.unsubscribeUrl;
    const field = fieldOf(key);
    if (field === undefined) return undefined;
    return standard[field] ?? contact.properties[field] ?? null;
  };
  const fallbackFor = (key: string) => {
    const field = fieldOf(key);
    if (field === undefined) return undefined;
    return input.propertyFallbacks[field] ?? "";
  };
  const render = (text: string, escapeHtml: boolean) => {
    for (const match of text.matchAll(/\{\{\{\s*([A-Za-z0-9_.]+)/g)) values[match[1]!] ??= lookup(match[1]!);
    return renderPlaceholders(text, values, { escapeHtml, fallbackFor });
  };
  return {
    subject: render(input.subject, false),
    html: input.html === null ? null : render(input.html, true),
    text: input.text === null ? null : render(input.text, false),
  };
}
