import { htmlToText } from "@tidings/mail";

/**
 * An email's text part, by the rule every way of sending shares: the text given, none when it is `""`
 * (generation turned off), and otherwise generated from the html (docs/wire-compatibility.md §6.1,
 * and §10.5 of broadcasts).
 */
export function textPart(html: string | null, text: string | null | undefined): string | null {
  if (text === "") return null;
  if (text !== null && text !== undefined) return text;
  return html === null ? null : htmlToText(html);
}
