import type { ContactFields } from "../contact/decider.js";
import { checkContactEmail, checkContactName, normalContactEmail, type PropertyTypes } from "../contact/rules.js";
import type { ContactPropertyValue } from "../contactproperty/events.js";
import type { ColumnMap } from "./events.js";

/** One CSV record, by header. */
export type CsvRecord = Readonly<Record<string, string | undefined>>;

export type ImportedRow =
  | { ok: true; email: string; fields: Partial<ContactFields>; properties: Record<string, ContactPropertyValue> }
  | { ok: false; reason: string };

const booleans: Record<string, boolean> = { true: true, false: false, "1": true, "0": false, yes: true, no: false };
const numberPattern = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;

const cell = (record: CsvRecord, column: string | null) => (column === null ? "" : (record[column] ?? "").trim());

/**
 * A record as the contact it describes, or why it cannot be imported. An empty cell sets nothing: on an
 * upsert the contact keeps what it had. Property cells are read as their property's type.
 */
export function readImportRow(record: CsvRecord, columns: ColumnMap, types: PropertyTypes): ImportedRow {
  const email = cell(record, columns.email);
  const badEmail = checkContactEmail(email);
  if (badEmail) return { ok: false, reason: email === "" ? "missing email" : `invalid email \`${email}\`` };
  const fields: Partial<ContactFields> = {};
  for (const [field, column] of [
    ["firstName", columns.firstName],
    ["lastName", columns.lastName],
  ] as const) {
    const value = cell(record, column);
    if (value === "") continue;
    const bad = checkContactName(field === "firstName" ? "first_name" : "last_name", value);
    if (bad) return { ok: false, reason: bad.message };
    fields[field] = value;
  }
  const unsubscribed = cell(record, columns.unsubscribed).toLowerCase();
  if (unsubscribed !== "") {
    if (!(unsubscribed in booleans)) return { ok: false, reason: `\`unsubscribed\` must be true or false, not \`${unsubscribed}\`` };
    fields.unsubscribed = booleans[unsubscribed]!;
  }
  const properties: Record<string, ContactPropertyValue> = {};
  for (const [key, column] of Object.entries(columns.properties)) {
    const value = cell(record, column);
    if (value === "") continue;
    const type = types[key];
    if (type === undefined) return { ok: false, reason: `\`${key}\` is not a contact property` };
    if (type === "number") {
      if (!numberPattern.test(value)) return { ok: false, reason: `property \`${key}\` must be a number, not \`${value}\`` };
      properties[key] = Number(value);
    } else properties[key] = value;
  }
  return { ok: true, email: normalContactEmail(email), fields, properties };
}
