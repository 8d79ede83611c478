import { basename } from "node:path";
import { formatTimestamp, newId, TidingsError } from "@tidings/core";
import { DomainRejection } from "@tidings/commands";
import {
  base64Length,
  checkAttachments,
  checkAttachmentsTotal,
  checkContent,
  checkFrom,
  checkHeaders,
  checkTemplateExclusive,
  checkRecipients,
  checkTags,
  checkSendingDomain,
  isDomainError,
  MAX_ATTACHMENTS_BASE64_BYTES,
  parseScheduledAt,
  sendingDomainName,
  type AttachmentInput,
  type DomainError,
  type EmailAttachment,
  type EmailContent,
} from "@tidings/domain";
import type { BlobStore } from "@tidings/blobs";
import type { EventStore } from "@tidings/eventstore";
import type { Config } from "@tidings/core";
import { textPart } from "@tidings/sending";
import type { RequestAuth } from "../plugins/auth.js";
import { attachmentContentType } from "../attachments/attachmentContentType.js";
import { fetchAttachment } from "../attachments/fetchAttachment.js";
import type { SendingDomainCache } from "../lookups/sendingDomainCache.js";
import { renderTemplateForSend, templateForSend } from "../lookups/templateForSend.js";

/** A send as it arrives on the wire (docs/wire-compatibility.md §6.1), after the route's schema. */
export interface SendEmailRequest {
  from?: string | undefined;
  to?: string | string[] | undefined;
  subject?: string | undefined;
  cc?: string | string[] | undefined;
  bcc?: string | string[] | undefined;
  reply_to?: string | string[] | undefined;
  html?: string | undefined;
  text?: string | undefined;
  react?: unknown;
  headers?: Record<string, string> | undefined;
  tags?: { name: string; value: string }[] | undefined;
  attachments?: AttachmentInput[] | undefined;
  scheduled_at?: string | undefined;
  template?: { id: string; variables?: Record<string, string | number> | undefined } | undefined;
}

export interface PreparedEmail {
  content: EmailContent;
  scheduledAt: string | null;
}

export interface PrepareDeps {
  store: EventStore;
  blobs: BlobStore;
  config: Pick<Config, "TIDINGS_ALLOW_UNVERIFIED_FROM">;
  domains: SendingDomainCache;
}

const PATH_FETCH_TIMEOUT_MS = 10_000;

const list = (value: string | string[] | undefined) => (value === undefined ? [] : Array.isArray(value) ? value : [value]);

function orThrow(error: DomainError | undefined): void {
  if (error) throw new TidingsError(error.name, error.message);
}

/**
 * Everything a send's rules need before the email can be recorded: the validation of docs/wire-compatibility.md §10.3, the
 * template rendered, the sending domain checked, the attachments' bytes in the blob store, and the text
 * part generated. Throws the TidingsError the client gets; nothing is written to the event store here.
 */
export async function prepareEmail(
  deps: PrepareDeps,
  auth: RequestAuth,
  body: SendEmailRequest,
  now: Date,
  emailId: string = newId(),
): Promise<PreparedEmail> {
  orThrow(checkTemplateExclusive(body));
  const template = body.template ? await templateForSend(deps, auth.teamId, body.template.id) : null;
  orThrow(checkContent(body, template?.subject ?? null));
  const rendered = template
    ? renderTemplateForSend(template, body.template?.variables ?? {}, {
        from: body.from,
        subject: body.subject,
        replyTo: body.reply_to === undefined ? undefined : list(body.reply_to),
      })
    : null;

  const from = rendered?.from ?? body.from;
  if (from === undefined) throw new TidingsError("missing_required_field", "Missing `from` field.");
  orThrow(checkFrom(from));
  const to = list(body.to);
  const cc = list(body.cc);
  const bcc = list(body.bcc);
  const replyTo = rendered?.replyTo ?? list(body.reply_to);
  orThrow(checkRecipients("to", to));
  orThrow(checkRecipients("cc", cc));
  orThrow(checkRecipients("bcc", bcc));
  orThrow(checkRecipients("reply_to", replyTo));
  const tags = body.tags ?? [];
  orThrow(checkTags(tags));
  const headers = body.headers ?? {};
  orThrow(checkHeaders(headers));
  const scheduled = body.scheduled_at === undefined ? null : parseScheduledAt(body.scheduled_at, now);
  if (isDomainError(scheduled)) orThrow(scheduled);
  const domainId = await sendingDomainFor(deps, auth, from);

  const attachments = await storeAttachments(deps.blobs, body.attachments ?? []);
  const html = rendered?.html ?? body.html ?? null;
  const text = textPart(html, rendered ? rendered.text : body.text);
  return {
    content: {
      emailId,
      teamId: auth.teamId,
      from,
      to,
      cc,
      bcc,
      replyTo,
      subject: (rendered?.subject ?? body.subject)!,
      html,
      text,
      headers,
      tags,
      attachments,
      templateId: template?.templateId ?? null,
      templateVersion: template?.version ?? null,
      domainId,
      createdAt: formatTimestamp(now),
    },
    scheduledAt: scheduled === null ? null : formatTimestamp(scheduled as Date),
  };
}

/** The team's domain the `from` is on (`checkSendingDomain`), which the delivery saga signs with. */
export async function sendingDomainFor(
  deps: Pick<PrepareDeps, "domains" | "config">,
  auth: RequestAuth,
  from: string,
): Promise<string | null> {
  const name = sendingDomainName(from);
  const holder = await deps.domains.holding(name);
  const checked = checkSendingDomain({
    name,
    holder,
    teamId: auth.teamId,
    allowUnverified: deps.config.TIDINGS_ALLOW_UNVERIFIED_FROM,
    restrictedTo: auth.domainId,
  });
  if (isDomainError(checked)) throw new DomainRejection(checked);
  deps.domains.passed(name, holder);
  return checked.domainId;
}

async function storeAttachments(blobs: BlobStore, inputs: AttachmentInput[]): Promise<EmailAttachment[]> {
  orThrow(checkAttachments(inputs));
  const inline = inputs.reduce((total, a) => total + (a.content?.replace(/\s+/g, "").length ?? 0), 0);
  let budget = MAX_ATTACHMENTS_BASE64_BYTES - inline;
  const stored: EmailAttachment[] = [];
  for (const [index, input] of inputs.entries()) {
    let bytes: Buffer;
    let fetchedType: string | null = null;
    if (input.content !== undefined) {
      bytes = Buffer.from(input.content, "base64");
    } else {
      const fetched = await fetchAttachment(input.path!, index, {
        maxBytes: Math.floor((budget * 3) / 4),
        timeoutMs: PATH_FETCH_TIMEOUT_MS,
      });
      bytes = fetched.bytes;
      fetchedType = fetched.contentType;
      budget -= base64Length(bytes.length);
      orThrow(checkAttachmentsTotal(MAX_ATTACHMENTS_BASE64_BYTES - budget));
    }
    const filename = input.filename ?? (basename(new URL(input.path!).pathname) || "attachment");
    stored.push({
      id: newId(),
      filename,
      contentType: attachmentContentType(filename, input.content_type ?? fetchedType),
      size: bytes.length,
      contentId: input.content_id ?? null,
      disposition: input.content_id ? "inline" : "attachment",
      blob: await blobs.put(bytes),
    });
  }
  return stored;
}
