import { z } from "zod";
import { emailStatuses, MAX_TO_RECIPIENTS } from "@tidings/domain";

const addresses = (what: string) => z.union([z.string(), z.array(z.string())]).describe(what);

/** The body of `POST /emails` and of each batch item (reference §6.1); the rules themselves live in the domain. */
export const sendEmailBody = z.object({
  from: z.string().optional().describe("`a@b.c` or `Name <a@b.c>`; optional when the template has a default sender."),
  to: addresses(`Required: one address or a list of at most ${MAX_TO_RECIPIENTS}.`).optional(),
  subject: z.string().optional().describe("Required unless the template has a default subject."),
  cc: addresses("Carbon copy recipients.").optional(),
  bcc: addresses("Blind carbon copy recipients.").optional(),
  reply_to: addresses("Reply-to addresses.").optional(),
  html: z.string().optional(),
  text: z.string().optional().describe('Generated from `html` when omitted; `""` turns generation off.'),
  react: z.unknown().optional().describe("Rendered to `html` by the SDK; with `template` it is refused."),
  headers: z.record(z.string(), z.string()).optional().describe("Custom MIME headers; the ones Tidings sets itself are refused."),
  tags: z
    .array(z.object({ name: z.string(), value: z.string() }))
    .optional()
    .describe("ASCII letters, digits, `_` and `-`, at most 256 characters each."),
  attachments: z
    .array(
      z.object({
        content: z.string().optional().describe("Base64."),
        path: z.string().optional().describe("An http(s) URL Tidings fetches."),
        filename: z.string().optional(),
        content_type: z.string().optional(),
        content_id: z.string().optional().describe("Makes the attachment inline, for `cid:` references."),
      }),
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
});
export type SendEmailBody = z.infer<typeof sendEmailBody>;

export const emailListItem = z.object({
  id: z.uuid(),
  to: z.array(z.string()),
  from: z.string(),
  created_at: z.string(),
  subject: z.string(),
  cc: z.array(z.string()).nullable(),
  bcc: z.array(z.string()).nullable(),
  reply_to: z.array(z.string()).nullable(),
  last_event: z.enum(emailStatuses),
  message_id: z.string(),
  scheduled_at: z.string().nullable(),
});

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
  expires_at: z.string(),
});
