import { DomainError } from "../../decider.js";

export const MAX_TO_RECIPIENTS = 50;

/** A bare address; exported so that the API's documentation states the same rule. */
export const addrSpec = /^[^\s@<>",;]+@[^\s@<>",;.]+(\.[^\s@<>",;.]+)+$/;
const nameAddr = /^(.*?)\s*<([^<>]+)>$/;

export interface Mailbox {
  name: string | null;
  address: string;
}

/** `a@b.c` or `Name <a@b.c>` (the only forms docs/wire-compatibility.md §6.1 accepts); null for anything else. */
/** RFC 5322's line limit: longer is no address, and the patterns below need not see it. */
const MAX_MAILBOX_LENGTH = 998;

export function parseMailbox(value: string): Mailbox | null {
  if (value.length > MAX_MAILBOX_LENGTH) return null;
  const text = value.trim();
  if (addrSpec.test(text)) return { name: null, address: text };
  const match = nameAddr.exec(text);
  if (!match || !addrSpec.test(match[2]!)) return null;
  const name = match[1]!.trim().replace(/^"(.*)"$/, "$1");
  if (/[\r\n]/.test(name)) return null;
  return { name: name || null, address: match[2]! };
}

export function checkFrom(from: string): DomainError | undefined {
  if (parseMailbox(from)) return undefined;
  return new DomainError(
    "invalid_from_address",
    "Invalid `from` field. The email address needs to follow the `email@example.com` or `Name <email@example.com>` format.",
  );
}

/** `to`, `cc`, `bcc`, `reply_to`: every entry a mailbox; `to` has at least one and at most 50. */
export function checkRecipients(field: "to" | "cc" | "bcc" | "reply_to", addresses: string[]): DomainError | undefined {
  if (field === "to") {
    if (addresses.length === 0) return new DomainError("missing_required_field", "Missing `to` field.");
    if (addresses.length > MAX_TO_RECIPIENTS)
      return new DomainError("validation_error", `Too many recipients in \`to\`: at most ${MAX_TO_RECIPIENTS}.`);
  }
  const invalid = addresses.find((address) => !parseMailbox(address));
  if (invalid !== undefined)
    return new DomainError(
      "validation_error",
      `Invalid \`${field}\` field. The email address needs to follow the \`email@example.com\` or \`Name <email@example.com>\` format.`,
    );
  return undefined;
}

/** The bare addresses of a list, lower-cased: how suppression and domain checks compare them. */
export const bareAddresses = (addresses: string[]) => addresses.map((a) => parseMailbox(a)?.address.toLowerCase() ?? a.toLowerCase());
