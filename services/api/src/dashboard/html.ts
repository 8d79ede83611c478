import { escapeHtml } from "@tidings/domain";

/**
 * HTML built from template literals in which every interpolated value is escaped unless it is itself
 * `Html`: a page cannot show an email's subject, a key's name or an API error as markup by forgetting to
 * escape it, because forgetting is the escaped case.
 */

export class Html {
  constructor(readonly text: string) {}
  toString(): string {
    return this.text;
  }
}

/** What may be interpolated: nothing renders as nothing, a list renders each item, anything else as escaped text. */
export type HtmlValue = Html | string | number | boolean | null | undefined | readonly HtmlValue[];

function render(value: HtmlValue): string {
  if (value === null || value === undefined || value === false) return "";
  if (value instanceof Html) return value.text;
  if (Array.isArray(value)) return (value as readonly HtmlValue[]).map(render).join("");
  return escapeHtml(String(value));
}

export function html(strings: TemplateStringsArray, ...values: HtmlValue[]): Html {
  let text = strings[0]!;
  values.forEach((value, i) => (text += render(value) + strings[i + 1]!));
  return new Html(text);
}
