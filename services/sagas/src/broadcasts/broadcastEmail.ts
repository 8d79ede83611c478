import { broadcastEmailId, deterministicId, formatTimestamp } from "@tidings/core";
import { emailDecider, emailStream, isDomainError, personalizeBroadcast, placeholdersIn, type BroadcastContact, type BroadcastRecord, type EmailContent, type PlannedRecipient, type SuppressedAddress } from "@tidings/domain";
import { WrongExpectedRevisionError, type EventMetadata, type EventStore } from "@tidings/eventstore";
import { htmlToText, unsubscribeToken, unsubscribeUrlOf } from "@tidings/mail";

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
 * the contact (reference §6.11 fan-out), so a rerun composes the email it may already have queued.
 */
export function recipientEmail(input: RecipientEmailInput): EmailContent {
  const { broadcast, recipient, links, now } = input;
  const { content, teamId } = broadcast;
  const claims = { contactId: recipient.contactId, teamId, topicId: content.topicId, expiresAt: Math.floor((now.getTime() + links.validForMs) / 1000) };
  const token = unsubscribeToken(links.secret, claims);
  const url = unsubscribeUrlOf(links.publicUrl, token);
  const contact = input.contact ?? { email: recipient.email, firstName: null, lastName: null, properties: {} };
  // `text: ""` turns generation off (seed spec, POST /broadcasts); omitted, it is generated from the html.
  const generated = content.text === null && content.html !== null;
  const textSource = generated ? input.textTemplate : content.text;
  const parts = personalizeBroadcast({ subject: content.subject!, html: content.html, text: textSource, contact, propertyFallbacks: input.propertyFallbacks, unsubscribeUrl: url });
  const text = parts.text === "" ? null : generated && textSource === null ? htmlToText(parts.html!) : parts.text;
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

/**
 * Queues the email at "no stream", with event ids derived from the email id: a second run of the same
 * batch finds the stream there and appends nothing, which is how N contacts make exactly N emails. A
 * recipient on the suppression list gets the email recorded suppressed in the same append, as a send would.
 */
export async function queueRecipientEmail(store: EventStore, content: EmailContent, suppressed: SuppressedAddress | undefined, metadata: EventMetadata): Promise<void> {
  const decided = emailDecider.decide(
    { type: "SendEmail", content, scheduledAt: null, suppressed: suppressed ? [suppressed] : [], now: content.createdAt },
    emailDecider.initialState,
  );
  if (isDomainError(decided)) throw new Error(decided.message);
  try {
    await store.append(
      emailStream(content.emailId),
      decided.map((event) => ({ id: deterministicId(content.emailId, event.type), type: event.type, data: event.data, metadata })),
      "no_stream",
    );
  } catch (error) {
    if (!(error instanceof WrongExpectedRevisionError)) throw error;
  }
}
