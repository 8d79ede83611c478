import type { EventOf, EventTypeOf, StreamCategory } from "@tidings/domain";
import { contactSubject } from "./subjectHash.js";
import type { Sealing, SealingPlan } from "./sealingPlan.js";

/**
 * The personal-data map (docs/privacy.md): for each event type that holds personal data, what is sealed
 * and under whose key. An address is sealed under its own subject's key wherever it appears; what was
 * written to or about someone (an email's body, a webhook's payload) is content, sealed under a key
 * derived from its period's and its subjects' keys (keyRefs.ts). Ids, times, counts and statuses stay in
 * clear, so history, metrics and the hash chains outlive an erasure. A type once listed stays listed: its stored events hold sealed values.
 */
type Data<C extends StreamCategory, T extends EventTypeOf<C>> = EventOf<C, T>["data"];
type Plan<C extends StreamCategory, T extends EventTypeOf<C>> = (data: Data<C, T>, seal: Sealing) => unknown;

const addresses = (seal: Sealing, list: readonly string[]) => list.map((a) => seal.address(a));

const person = (d: Data<"contact", "ContactCreated" | "ContactUpdated">, seal: Sealing) => ({
  ...d,
  email: seal.address(d.email),
  firstName: seal.of(d.email, d.firstName),
  lastName: seal.of(d.email, d.lastName),
  properties: seal.of(d.email, d.properties),
});

const emailContent = (d: Data<"email", "EmailQueued" | "EmailScheduled">, seal: Sealing) => {
  const about = [...d.to, ...d.cc, ...d.bcc];
  const content = (value: unknown) => seal.content("email", about, value);
  return {
    ...d,
    to: addresses(seal, d.to),
    cc: addresses(seal, d.cc),
    bcc: addresses(seal, d.bcc),
    replyTo: addresses(seal, d.replyTo),
    subject: content(d.subject),
    html: content(d.html),
    text: content(d.text),
    headers: content(d.headers),
    attachments: d.attachments.map((a) => ({ ...a, filename: content(a.filename) })),
  };
};

/** An outcome names its recipients; the remote server's reply often quotes them, so it is the email's content. */
const outcome = (d: { recipients?: string[]; response?: string | null }, seal: Sealing) => ({
  ...d,
  ...(d.recipients ? { recipients: addresses(seal, d.recipients) } : {}),
  ...(d.response === undefined ? {} : { response: seal.content("email", d.recipients ?? [], d.response) }),
});

/** An open or click is the recipients' doing: sealed with the email's content, for the same subjects. */
const engagement = (d: { ipAddress: string | null; userAgent: string | null }, seal: Sealing) => ({
  ...d,
  ipAddress: seal.streamContent("email", [], d.ipAddress),
  userAgent: seal.streamContent("email", [], d.userAgent),
});

/** Every address written anywhere in a free-form value (a payload, an error message): the subjects it is about. */
export function addressesIn(value: unknown, found: string[] = []): string[] {
  if (typeof value === "string") found.push(...(value.match(/[^\s<>"'(),;:@]+@[^\s<>"'(),;:@]+\.[a-z]{2,}/gi) ?? []));
  else if (Array.isArray(value)) for (const item of value) addressesIn(item, found);
  else if (typeof value === "object" && value !== null) for (const item of Object.values(value)) addressesIn(item, found);
  return found;
}

const plans: { [C in StreamCategory]?: { [T in EventTypeOf<C>]?: Plan<C, T> } } = {
  contact: { ContactCreated: person, ContactUpdated: person },
  email: {
    EmailQueued: emailContent,
    EmailScheduled: emailContent,
    EmailDelivered: outcome,
    EmailDeliveryDelayed: outcome,
    EmailFailed: outcome,
    EmailSuppressed: (d, seal) => ({ ...d, recipients: addresses(seal, d.recipients) }),
    EmailBounced: (d, seal) => ({
      ...outcome(d, seal),
      recipientHashes: d.recipients.map((r) => seal.hash(r)),
      bounce: { ...d.bounce, message: seal.content("email", d.recipients, d.bounce.message) },
    }),
    EmailComplained: (d, seal) => ({
      ...d,
      recipients: addresses(seal, d.recipients),
      recipientHashes: d.recipients.map((r) => seal.hash(r)),
    }),
    EmailOpened: engagement,
    EmailClicked: (d, seal) => ({ ...engagement(d, seal), link: seal.streamContent("email", [], d.link) }),
  },
  broadcast: {
    BroadcastBatchPlanned: (d, seal) => ({ ...d, recipients: d.recipients.map((r) => ({ ...r, email: seal.address(r.email) })) }),
  },
  suppression: {
    SuppressionAdded: (d, seal) => ({ ...d, email: seal.address(d.email), emailHash: seal.hash(d.email) }),
    SuppressionRemoved: (d, seal) => ({ ...d, email: seal.address(d.email), emailHash: seal.hash(d.email) }),
  },
  inbound: {
    InboundEmailReceived: (d, seal) => {
      const about = [d.from, ...d.to, ...d.cc, ...d.replyTo, ...(d.mailFrom ? [d.mailFrom] : [])];
      const content = (value: unknown) => seal.content("inbound", about, value);
      return {
        ...d,
        from: seal.address(d.from),
        to: addresses(seal, d.to),
        cc: addresses(seal, d.cc),
        bcc: addresses(seal, d.bcc),
        replyTo: addresses(seal, d.replyTo),
        mailFrom: d.mailFrom === null ? null : seal.address(d.mailFrom),
        subject: content(d.subject),
        messageId: content(d.messageId),
        attachments: d.attachments.map((a) => ({ ...a, filename: content(a.filename) })),
      };
    },
  },
  webhookdelivery: {
    WebhookDeliveryCreated: (d, seal) => ({
      ...d,
      payload: { ...d.payload, data: seal.content("webhook", addressesIn(d.payload.data), d.payload.data) },
    }),
    WebhookDeliveryAttempted: (d, seal) => ({ ...d, response: seal.streamContent("webhook", addressesIn(d.response), d.response) }),
  },
  customevent: {
    CustomEventReceived: (d, seal) => ({
      ...d,
      payload: seal.content("event", [...addressesIn(d.payload), contactSubject(d.contactId)], d.payload),
    }),
  },
  automationrun: {
    AutomationRunStarted: (d, seal) => ({
      ...d,
      trigger: {
        ...d.trigger,
        payload: seal.content("event", [...addressesIn(d.trigger.payload), contactSubject(d.trigger.contactId)], d.trigger.payload),
      },
    }),
    AutomationRunStepCompleted: (d, seal) => ({ ...d, output: seal.streamContent("event", addressesIn(d.output), d.output) }),
    AutomationRunStepFailed: (d, seal) => ({ ...d, error: seal.streamContent("event", addressesIn(d.error), d.error) }),
  },
  import: {
    ContactImportProgressed: (d, seal) => ({ ...d, errors: seal.content("import", addressesIn(d.errors), d.errors) }),
  },
};

const byType = new Map<string, SealingPlan>(
  Object.values(plans).flatMap((forCategory) => Object.entries(forCategory ?? {}) as [string, SealingPlan][]),
);

/** The plan for an event type, or undefined for a type that holds no personal data. */
export function sealingPlanOf(type: string): SealingPlan | undefined {
  return byType.get(type);
}
