import { randomUUID } from "node:crypto";
import type { EventOf, EventTypeOf, StreamCategory } from "../index.js";

/**
 * Builders of the events that carry personal data, for the sealing, erasure and retention tests: each
 * fills what the projections and the sealing plan read, and takes the personal values from the test.
 */

type Data<C extends StreamCategory, T extends EventTypeOf<C>> = EventOf<C, T>["data"];

const at = () => new Date().toISOString();
const blob = "ab".repeat(32);

/** An event of the team, as the sealing store needs it: the team in its metadata. */
export const anEvent = <C extends StreamCategory, T extends EventTypeOf<C>>(_category: C, type: T, teamId: string, data: Data<C, T>) => ({
  id: randomUUID(),
  type,
  data,
  metadata: { teamId },
});

export const contactCreated = (
  teamId: string,
  contactId: string,
  person: { email: string; firstName: string; lastName: string; plan: string },
) =>
  anEvent("contact", "ContactCreated", teamId, {
    contactId,
    teamId,
    email: person.email,
    firstName: person.firstName,
    lastName: person.lastName,
    unsubscribed: false,
    properties: { plan: person.plan },
    segmentIds: [],
    topics: [],
    createdAt: at(),
  });

export interface Mail {
  to: string[];
  cc?: string[];
  bcc?: string[];
  replyTo?: string[];
  subject: string;
  html: string;
  attachment?: string;
  broadcastId?: string;
}

export const emailQueued = (teamId: string, emailId: string, mail: Mail) =>
  anEvent("email", "EmailQueued", teamId, {
    emailId,
    teamId,
    from: "Shop <shop@sender.test>",
    to: mail.to,
    cc: mail.cc ?? [],
    bcc: mail.bcc ?? [],
    replyTo: mail.replyTo ?? [],
    subject: mail.subject,
    html: mail.html,
    text: mail.html.replace(/<[^>]+>/g, ""),
    headers: { "X-Order": mail.subject },
    tags: [{ name: "kind", value: "order" }],
    attachments: mail.attachment
      ? [
          {
            id: randomUUID(),
            filename: mail.attachment,
            contentType: "application/pdf",
            size: 10,
            contentId: null,
            disposition: "attachment",
            blob,
          },
        ]
      : [],
    templateId: null,
    templateVersion: null,
    domainId: null,
    createdAt: at(),
    ...(mail.broadcastId ? { broadcastId: mail.broadcastId } : {}),
  });

export const emailDelivered = (teamId: string, emailId: string, recipients: string[]) => [
  anEvent("email", "EmailSent", teamId, { emailId, sentAt: at() }),
  anEvent("email", "EmailDelivered", teamId, {
    emailId,
    deliveredAt: at(),
    response: `250 ok ${recipients.join(" ")}`,
    code: 250,
    recipients,
  }),
];

export const emailEngaged = (teamId: string, emailId: string, link: string) => [
  anEvent("email", "EmailOpened", teamId, {
    emailId,
    openedAt: at(),
    ipAddress: "192.0.2.7",
    userAgent: "Mail",
    machine: false,
    machineReason: null,
  }),
  anEvent("email", "EmailClicked", teamId, {
    emailId,
    link,
    linkIndex: 0,
    clickedAt: at(),
    ipAddress: "192.0.2.7",
    userAgent: "Mail",
    machine: false,
    machineReason: null,
  }),
];

export const broadcastSent = (teamId: string, broadcastId: string, recipients: { contactId: string; email: string }[]) => [
  anEvent("broadcast", "BroadcastCreated", teamId, {
    broadcastId,
    teamId,
    origin: "api",
    duplicatedFrom: null,
    name: "Spring",
    segmentId: null,
    from: "Shop <shop@sender.test>",
    subject: "Spring news",
    html: "<p>Hi {{{FIRST_NAME}}}</p>",
    text: null,
    replyTo: null,
    previewText: null,
    topicId: null,
    createdAt: at(),
  }),
  anEvent("broadcast", "BroadcastBatchPlanned", teamId, { broadcastId, teamId, batch: 0, recipients }),
];

export const inboundReceived = (
  teamId: string,
  inboundId: string,
  mail: { from: string; to: string[]; cc?: string[]; subject: string; attachment?: string },
) =>
  anEvent("inbound", "InboundEmailReceived", teamId, {
    inboundId,
    teamId,
    from: mail.from,
    to: mail.to,
    cc: mail.cc ?? [],
    bcc: [],
    replyTo: [],
    receivedFor: ["inbox@receiving.test"],
    mailFrom: null,
    messageId: `<${inboundId}@mail.test>`,
    subject: mail.subject,
    raw: { blob, size: 100 },
    attachments: mail.attachment
      ? [
          {
            id: randomUUID(),
            filename: mail.attachment,
            contentType: "image/jpeg",
            size: 10,
            contentId: null,
            disposition: "attachment",
            blob,
          },
        ]
      : [],
    receivedAt: at(),
  });

export const webhookCreated = (teamId: string, webhookId: string) =>
  anEvent("webhook", "WebhookCreated", teamId, {
    webhookId,
    teamId,
    endpoint: "https://hooks.test/in",
    events: ["contact.updated"],
    secret: "sealed",
    createdAt: at(),
  });

export const webhookDelivered = (
  teamId: string,
  delivery: { deliveryId: string; webhookId: string; eventType: string; data: Record<string, unknown>; response: string },
) => [
  anEvent("webhookdelivery", "WebhookDeliveryCreated", teamId, {
    deliveryId: delivery.deliveryId,
    webhookId: delivery.webhookId,
    teamId,
    eventId: randomUUID(),
    eventType: delivery.eventType,
    payload: { type: delivery.eventType, created_at: at(), data: delivery.data },
    createdAt: at(),
  }),
  anEvent("webhookdelivery", "WebhookDeliveryAttempted", teamId, {
    deliveryId: delivery.deliveryId,
    attempt: 1,
    succeeded: false,
    statusCode: 400,
    response: delivery.response,
    durationMs: 12,
    attemptedAt: at(),
    nextAttemptAt: null,
  }),
];

export const importWithErrors = (teamId: string, importId: string, errors: { line: number; reason: string }[]) => {
  const counts = { total: errors.length + 1, created: 1, updated: 0, skipped: 0, failed: errors.length };
  return [
    anEvent("import", "ContactImportQueued", teamId, {
      importId,
      teamId,
      file: { sha256: blob, size: 100 },
      columnMap: { email: "email", firstName: null, lastName: null, unsubscribed: null, properties: {} },
      onConflict: "upsert",
      segmentIds: [],
      topics: [],
      createdAt: at(),
    }),
    anEvent("import", "ContactImportProgressed", teamId, { importId, rowsDone: counts.total, counts, errors }),
    anEvent("import", "ContactImportCompleted", teamId, { importId, teamId, counts, completedAt: at() }),
  ];
};

export const automationRun = (
  teamId: string,
  run: { runId: string; contactId: string; payload: Record<string, unknown>; output: Record<string, unknown>; error: string },
) => {
  const steps = [
    { key: "send", type: "send_email" as const, config: {} },
    { key: "update", type: "contact_update" as const, config: {} },
  ];
  return [
    anEvent("automationrun", "AutomationRunStarted", teamId, {
      runId: run.runId,
      automationId: randomUUID(),
      teamId,
      version: 1,
      steps,
      connections: [{ from: "send", to: "update", type: "default" }],
      trigger: { receivedEventId: randomUUID(), name: "signed_up", contactId: run.contactId, payload: run.payload },
      startedAt: at(),
    }),
    anEvent("automationrun", "AutomationRunStepCompleted", teamId, {
      runId: run.runId,
      key: "send",
      outcome: "completed",
      output: run.output,
      branch: "default",
      startedAt: at(),
      completedAt: at(),
    }),
    anEvent("automationrun", "AutomationRunStepFailed", teamId, {
      runId: run.runId,
      key: "update",
      error: run.error,
      startedAt: at(),
      failedAt: at(),
    }),
  ];
};

export const suppressionAdded = (teamId: string, suppressionId: string, email: string) =>
  anEvent("suppression", "SuppressionAdded", teamId, {
    suppressionId,
    teamId,
    email,
    origin: "manual",
    sourceId: null,
    createdAt: at(),
  });
