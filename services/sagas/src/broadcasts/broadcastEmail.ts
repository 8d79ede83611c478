import { broadcastEmailId, formatTimestamp } from "@tidings/core";
import {
  personalizeBroadcast,
  placeholdersIn,
  type BroadcastContact,
  type BroadcastRecord,
  type EmailContent,
  type PlannedRecipient,
} from "@tidings/domain";
import { htmlToText, unsubscribeToken, unsubscribeUrlOf } from "@tidings/mail";
import { textPart } from "@tidings/sending";

export interface UnsubscribeLinks {
  publicUrl: string;
  secret: string;
  /** The host of the `mailto:` in List-Unsubscribe. */
  mailHost: string;
  /** How long a link keeps working after the email is composed. */
  validForMs: number;
}

export interface RecipientEmailInput {
  broadcast: BroadcastRecord;
  recipient: PlannedRecipient;
  /** Undefined when the contact was erased since the snapshot: the planned address is all there is. */
  contact: BroadcastContact | undefined;
  propertyFallbacks: Record<string, string | number | null>;
  links: UnsubscribeLinks;
  /** The text part generated once from the broadcast's html, placeholders kept (`textTemplateOf`), when it can be. */
  textTemplate: string | null;
  now: Date;
}

/**
 * The text generated from the html before personalisation, so it is generated once per broadcast rather
 * than once per recipient; null when generation changed a placeholder (an upper-cased heading, say) and
 * each recipient's text must be generated from their own html.
 */
export function textTemplateOf(html: string | null): string | null {
  if (html === null) return null;
  const text = htmlToText(html);
  const keys = (s: string) => placeholdersIn(s).map((p) => `${p.key}|${p.fallback}`);
  const kept = new Set(keys(html));
  return keys(text).every((k) => kept.has(k)) ? text : null;
}

/**
 * One recipient's email: rendered for the contact, with their signed unsubscribe link in the body and in
 * `List-Unsubscribe` (the URL and a mailto) with RFC 8058 one-click. Its id derives from the broadcast and
 * the contact (docs/wire-compatibility.md §6.11 fan-out), so a rerun composes the email it may already have queued.
 */
export function recipientEmail(input: RecipientEmailInput): EmailContent {
  const { broadcast, recipient, links, now } = input;
  const { content, teamId } = broadcast;
  const claims = {
    contactId: recipient.contactId,
    teamId,
    topicId: content.topicId,
    expiresAt: Math.floor((now.getTime() + links.validForMs) / 1000),
  };
  const token = unsubscribeToken(links.secret, claims);
  const url = unsubscribeUrlOf(links.publicUrl, token);
  const contact = input.contact ?? { email: recipient.email, firstName: null, lastName: null, properties: {} };
  // Omitted, the text is generated from the html (`textPart`), from the shared template when there is one.
  const generated = content.text === null && content.html !== null;
  const textSource = generated ? input.textTemplate : content.text;
  const parts = personalizeBroadcast({
    subject: content.subject!,
    html: content.html,
    text: textSource,
    contact,
    propertyFallbacks: input.propertyFallbacks,
    unsubscribeUrl: url,
  });
  // Without a shared text template, this recipient's text is generated from their own html.
  const text = textPart(parts.html, generated && textSource === null ? null : parts.text);
  const mailto = `mailto:unsubscribe@${links.mailHost}?subject=${encodeURIComponent(`unsubscribe ${token}`)}`;
  return {
    emailId: broadcastEmailId(broadcast.broadcastId, recipient.contactId),
    teamId,
    from: content.from!,
    to: [recipient.email],
    cc: [],
    bcc: [],
    replyTo: content.replyTo ?? [],
    subject: parts.subject,
    html: parts.html,
    text,
    headers: { "List-Unsubscribe": `<${url}>, <${mailto}>`, "List-Unsubscribe-Post": "List-Unsubscribe=One-Click" },
    tags: [],
    attachments: [],
    templateId: null,
    templateVersion: null,
    domainId: broadcast.domainId,
    createdAt: formatTimestamp(now),
    broadcastId: broadcast.broadcastId,
  };
}
