import type { AddressObject, ParsedMail } from "mailparser";

/** A mailbox list header as the wire shows it: `Name <address>` or the bare address, one per mailbox. */
export function mailboxes(header: AddressObject | AddressObject[] | undefined): string[] {
  const objects = header === undefined ? [] : Array.isArray(header) ? header : [header];
  return objects
    .flatMap((o) => o.value)
    .flatMap((m) => (m.group ? m.group : [m]))
    .filter((m) => m.address)
    .map((m) => (m.name ? `${m.name} <${m.address}>` : m.address!));
}

/** Header fields by lower-cased name, unfolded; a repeated field's values joined by a line break. */
export function headerRecord(parsed: ParsedMail): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const { key, line } of parsed.headerLines) {
    const value = line
      .slice(line.indexOf(":") + 1)
      .replace(/\r?\n[ \t]+/g, " ")
      .trim();
    headers[key] = headers[key] === undefined ? value : `${headers[key]}\n${value}`;
  }
  return headers;
}

/**
 * Parses a received message. `cid` keeps inline images as `cid:` references; otherwise they are embedded
 * as data URIs (docs/wire-compatibility.md §6.3, `html_format`).
 */
export async function parseReceived(raw: Buffer, htmlFormat: "data_uri" | "cid" = "cid"): Promise<ParsedMail> {
  // Imported at the first message: mailparser is resident megabytes a process that receives nothing never uses.
  const { simpleParser } = await import("mailparser");
  return simpleParser(raw, { keepCidLinks: htmlFormat === "cid" });
}
