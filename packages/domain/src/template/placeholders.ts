/**
 * `{{{KEY}}}` and `{{{KEY|fallback}}}` (docs/wire-compatibility.md §9). Keys are letters, digits, `_` and dots, so broadcast
 * fields such as `contact.first_name` parse like template variables. The fallback runs to the closing braces.
 */
const placeholderPattern = /\{\{\{\s*([A-Za-z0-9_.]+)\s*(?:\|([^}]*))?\}\}\}/g;

export interface Placeholder {
  key: string;
  /** The inline fallback after `|`, or null when there is none (`{{{KEY|}}}` is an empty fallback). */
  fallback: string | null;
}

/** Every placeholder in `text`, in order of appearance, repeats included. */
export function placeholdersIn(text: string): Placeholder[] {
  return Array.from(text.matchAll(placeholderPattern), (match) => ({ key: match[1]!, fallback: match[2] ?? null }));
}

export type PlaceholderValue = string | number;

export interface RenderOptions {
  /** True for html parts: a value is text, so `<` in a variable must not become markup. */
  escapeHtml: boolean;
  /** Asked for a placeholder with neither a value nor an inline fallback (a broadcast's property `fallback_value`). */
  fallbackFor?: (key: string) => PlaceholderValue | undefined;
}

const htmlEscapes: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };
export const escapeHtml = (value: string) => value.replace(/[&<>"']/g, (c) => htmlEscapes[c]!);

/**
 * Replaces each placeholder by its value, else its inline fallback. A placeholder with neither is left as
 * written: whether that is an error is the caller's rule (a send refuses it before rendering).
 */
export function renderPlaceholders(
  text: string,
  values: Readonly<Record<string, PlaceholderValue | null | undefined>>,
  options: RenderOptions,
): string {
  return text.replace(placeholderPattern, (whole, key: string, fallback: string | undefined) => {
    const value = values[key];
    const fromDefault = () => {
      const chosen = options.fallbackFor?.(key);
      return chosen === undefined ? undefined : String(chosen);
    };
    const chosen = value === undefined || value === null ? (fallback ?? fromDefault()) : String(value);
    if (chosen === undefined) return whole;
    return options.escapeHtml ? escapeHtml(chosen) : chosen;
  });
}
