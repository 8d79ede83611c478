import { z } from "zod";
import { emailStatuses, MAX_TAG_LENGTH, MAX_TO_RECIPIENTS } from "@tidings/domain";
import { mailboxText } from "./documentedText.js";
import { wireTimestampText } from "../wireTimestamp.js";

/*
 * The rules of a send live in the domain, which words its errors as the contract does (`Missing \`subject\`
 * field.`). The schema lets the domain see every body, and only describes those rules for the OpenAPI
 * document, with `.meta()`: JSON Schema keywords that zod does not enforce.
 */

const addresses = (what: string, most?: number) =>
  z.union([mailboxText(), z.array(mailboxText()).meta(most === undefined ? {} : { maxItems: most })]).describe(what);

const tagText = z.string().meta({ pattern: "^[A-Za-z0-9_-]+$", maxLength: MAX_TAG_LENGTH });

/**
 * What a send needs. A template send takes its subject and sender from the template when the body has
 * none, so `subject` cannot simply be `required`: `anyOf` says "a subject, a sender and a body, or a
 * template", and a template send carries no body of its own. A body that passes can still be refused
 * for what a schema cannot see (a template without a default subject, an unverified domain).
 */
const sendRule = {
  required: ["to"],
  anyOf: [
    { required: ["from", "subject", "html"], properties: { subject: { minLength: 1 } } },
    { required: ["from", "subject", "text"], properties: { subject: { minLength: 1 } } },
    { required: ["template"], not: { anyOf: [{ required: ["html"] }, { required: ["text"] }, { required: ["react"] }] } },
  ],
};

/** The body of `POST /emails` and of each batch item (docs/wire-compatibility.md §6.1); the rules themselves live in the domain. */
export const sendEmailBody = z
  .object({
    from: mailboxText().optional().describe("`a@b.c` or `Name <a@b.c>`; optional when the template has a default sender."),
    to: addresses(`One address or a list of at most ${MAX_TO_RECIPIENTS}.`, MAX_TO_RECIPIENTS).optional(),
    subject: z.string().optional().describe("Required unless the template has a default subject."),
    cc: addresses("Carbon copy recipients.").optional(),
    bcc: addresses("Blind carbon copy recipients.").optional(),
    reply_to: addresses("Reply-to addresses.").optional(),
    html: z.string().optional(),
    text: z.string().optional().describe('Generated from `html` when omitted; `""` turns generation off.'),
    react: z.unknown().optional().describe("Rendered to `html` by the SDK; with `template` it is refused."),
    headers: z.record(z.string(), z.string()).optional().describe("Custom MIME headers; the ones Tidings sets itself are refused."),
    tags: z
      .array(z.object({ name: tagText, value: tagText }))
      .optional()
      .describe(`ASCII letters, digits, \`_\` and \`-\`, at most ${MAX_TAG_LENGTH} characters each.`),
    attachments: z
      .array(
        z
          .object({
            content: z.string().meta({ contentEncoding: "base64" }).optional().describe("Base64; then `filename` is needed too."),
            path: z.string().meta({ format: "uri" }).optional().describe("An http(s) URL Tidings fetches."),
            filename: z.string().meta({ pattern: "^[^\\r\\n/\\\\]*$" }).optional(),
            content_type: z.string().optional(),
            content_id: z
              .string()
              .meta({ pattern: "^[\\x21-\\x3b\\x3d\\x3f-\\x7e]{1,250}$" })
              .optional()
              .describe("Makes the attachment inline, for `cid:` references."),
          })
          .meta({ oneOf: [{ required: ["content", "filename"] }, { required: ["path"] }] }),
      )
      .optional()
      .describe("At most 40 MB per email after base64."),
    scheduled_at: z.string().optional().describe("ISO 8601 or natural language (`in 1 hour`), at most 30 days ahead."),
    template: z
      .object({
        id: z.string().min(1).describe("Id or alias of a published template."),
        variables: z.record(z.string(), z.union([z.string(), z.number()])).optional(),
      })
      .optional(),
    topic_id: z.string().nullable().optional(),
  })
  .meta(sendRule);
export type SendEmailBody = z.infer<typeof sendEmailBody>;

/**
 * An item of `POST /emails/batch`, for the document only: the route checks each item on its own, so that
 * permissive mode can keep the valid ones, and its schema takes any array.
 */
export const batchItemDocument = (() => {
  const item = sendEmailBody
    .omit({ attachments: true, scheduled_at: true })
    .meta(sendRule)
    .describe("A `POST /emails` body without `attachments` and `scheduled_at`.");
  const { $schema: _, ...json } = z.toJSONSchema(item, { io: "input", target: "draft-2020-12" });
  return json;
})();

/** What a sent email and a received one both show of their message (`queries/messageHeaders.ts`). */
export const messageHeaders = z.object({
  id: z.uuid(),
  to: z.array(z.string()),
  from: z.string(),
  created_at: wireTimestampText(),
  subject: z.string(),
  cc: z.array(z.string()).nullable(),
  bcc: z.array(z.string()).nullable(),
  reply_to: z.array(z.string()).nullable(),
});

export const emailListItem = messageHeaders.extend({
  last_event: z.enum(emailStatuses),
  message_id: z.string(),
  scheduled_at: wireTimestampText().nullable(),
});

/**
 * An instant a list filter takes: an ISO 8601 datetime with its offset, or a date (UTC midnight), from the year
 * 0001 on. ISO's year 0000 (1 BC) is a valid date to zod, and PostgreSQL refuses to read it as one.
 */
const instant = (what: string) =>
  z
    .union([z.iso.datetime({ offset: true }), z.iso.date()], { error: `\`${what}\` must be an ISO 8601 date or datetime.` })
    .refine((value) => !value.startsWith("0000"), { error: `\`${what}\` must be in the year 0001 or later.` })
    .optional();

/** GET /emails's own filters (Tidings only, docs/wire-compatibility.md §6.1). */
export const emailListFilters = {
  status: z.enum(emailStatuses).optional().describe("Only the emails whose `last_event` is this."),
  domain_id: z.guid().optional().describe("Only the emails sent from this domain."),
  created_after: instant("created_after").describe("Only the emails created at or after this ISO 8601 date or datetime."),
  created_before: instant("created_before").describe("Only the emails created before this ISO 8601 date or datetime."),
  search: z
    .string()
    .min(1)
    .max(200)
    .optional()
    .describe("Only the emails with this text in a recipient's address (to, cc, bcc) or in the subject, in any case."),
};

export const emailObject = emailListItem.extend({
  object: z.literal("email"),
  html: z.string().nullable(),
  text: z.string().nullable(),
  tags: z.array(z.object({ name: z.string(), value: z.string() })),
});

export const attachmentItem = z.object({
  id: z.uuid(),
  filename: z.string(),
  size: z.number().int(),
  content_type: z.string(),
  content_disposition: z.enum(["inline", "attachment"]),
  content_id: z.string().optional(),
  download_url: z.string(),
  expires_at: wireTimestampText(),
});
