import { holds, type ColumnDefinition } from "../engine/projection.js";

/** A message's mailboxes (the domain's `messageMailboxes`) as sent and received emails both keep them. */
export const mailboxColumns = {
  from_address: { type: "text" },
  to_addresses: { type: "jsonb", ...holds<string[]>() },
  cc: { type: "jsonb", ...holds<string[]>() },
  bcc: { type: "jsonb", ...holds<string[]>() },
  reply_to: { type: "jsonb", ...holds<string[]>() },
} satisfies Record<string, ColumnDefinition>;

/** A message's mailboxes as `mailboxColumns` keep them. */
export const mailboxRow = (message: { from: string; to: string[]; cc: string[]; bcc: string[]; replyTo: string[] }) => ({
  from_address: message.from,
  to_addresses: message.to,
  cc: message.cc,
  bcc: message.bcc,
  reply_to: message.replyTo,
});
