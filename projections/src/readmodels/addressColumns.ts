import { holds, type ColumnDefinition } from "../engine/projection.js";

/** Who an email is from and to, kept alike for sent and received mail: each address list as a jsonb array. */
export const addressColumns = {
  from_address: { type: "text" },
  to_addresses: { type: "jsonb", ...holds<string[]>() },
  cc: { type: "jsonb", ...holds<string[]>() },
  bcc: { type: "jsonb", ...holds<string[]>() },
  reply_to: { type: "jsonb", ...holds<string[]>() },
} satisfies Record<string, ColumnDefinition>;

/** An email's addresses as `addressColumns` keep them. */
export const addressRow = (email: { from: string; to: string[]; cc: string[]; bcc: string[]; replyTo: string[] }) => ({
  from_address: email.from,
  to_addresses: email.to,
  cc: email.cc,
  bcc: email.bcc,
  reply_to: email.replyTo,
});
