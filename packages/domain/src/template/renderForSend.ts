import { DomainError } from "../decider.js";
import type { TemplateVariable } from "./events.js";
import { placeholdersIn, renderPlaceholders, type PlaceholderValue } from "./placeholders.js";

export const TEMPLATE_STRING_VALUE_MAX = 2000;

/** The latest published version of a template, as a send uses it. */
export interface TemplateForSend {
  templateId: string;
  version: number;
  name: string;
  subject: string | null;
  from: string | null;
  replyTo: string[] | null;
  html: string;
  /** Null: the sender generates text from the rendered html; "" means no text part. */
  text: string | null;
  variables: TemplateVariable[];
}

/** What the payload of a send may set over the template's defaults (docs/wire-compatibility.md §10.3: the payload wins). */
export interface TemplateOverrides {
  from?: string | undefined;
  subject?: string | undefined;
  replyTo?: string[] | undefined;
}

export interface RenderedTemplate {
  from: string;
  subject: string;
  replyTo: string[];
  html: string;
  text: string | null;
}

const invalid = (message: string) => new DomainError("validation_error", message);

function checkValues(
  template: TemplateForSend,
  supplied: Readonly<Record<string, unknown>>,
): DomainError | Record<string, PlaceholderValue> {
  const values: Record<string, PlaceholderValue> = {};
  for (const variable of template.variables) if (variable.fallbackValue !== null) values[variable.key] = variable.fallbackValue;
  const declared = new Map(template.variables.map((v) => [v.key, v.type]));
  for (const [key, value] of Object.entries(supplied)) {
    if (value === null || value === undefined) continue;
    const type = declared.get(key);
    if (type === "number" && (typeof value !== "number" || !Number.isFinite(value)))
      return invalid(`\`template.variables.${key}\` must be a number.`);
    if (typeof value === "string") {
      if (value.length > TEMPLATE_STRING_VALUE_MAX)
        return invalid(`\`template.variables.${key}\` must be at most ${TEMPLATE_STRING_VALUE_MAX} characters.`);
    } else if (typeof value !== "number" || !Number.isFinite(value)) {
      return invalid(`\`template.variables.${key}\` must be a string or a number.`);
    }
    values[key] = value;
  }
  return values;
}

/**
 * A template's published version with the send's variables applied. Every placeholder the parts use must
 * get a value: supplied, the declared `fallback_value`, or an inline `{{{KEY|fallback}}}` (docs/wire-compatibility.md §10.3).
 * Values are HTML-escaped in the html part only.
 */
export function renderTemplate(
  template: TemplateForSend,
  variables: Readonly<Record<string, unknown>>,
  overrides: TemplateOverrides = {},
): RenderedTemplate | DomainError {
  const values = checkValues(template, variables);
  if (values instanceof DomainError) return values;
  const subjectSource = overrides.subject === undefined ? template.subject : null;
  const parts = [subjectSource, template.html, template.text].filter((part): part is string => part !== null);
  const missing = parts.flatMap(placeholdersIn).find((p) => p.fallback === null && values[p.key] === undefined);
  if (missing) return invalid(`Missing \`${missing.key}\` in \`template.variables\`: the template uses it and it has no fallback.`);

  const from = overrides.from ?? template.from;
  if (from === null) return new DomainError("missing_required_field", "Missing `from` field: the template has no default sender.");
  const subject = overrides.subject ?? (subjectSource === null ? null : renderPlaceholders(subjectSource, values, { escapeHtml: false }));
  if (subject === null) return new DomainError("missing_required_field", "Missing `subject` field: the template has no default subject.");
  return {
    from,
    subject,
    replyTo: overrides.replyTo ?? template.replyTo ?? [],
    html: renderPlaceholders(template.html, values, { escapeHtml: true }),
    text: template.text === null ? null : renderPlaceholders(template.text, values, { escapeHtml: false }),
  };
}
