import type { InboundEmail } from "../../inboundemail/events.js";
import { isoTime, type WebhookEventCategory } from "./category.js";

/**
 * `email.received` (docs/wire-compatibility.md §8.2), from the inbound streams. The payload has no body: a receiver fetches
 * it with `GET /emails/receiving/:id`. The type is listed with the email types, where it belongs on the wire.
 */
export const inboundWebhookEvents: WebhookEventCategory = {
  streamCategory: "inbound",
  types: [],
  produces: ["email.received"],
  payloads: {
    InboundEmailReceived: (event) => {
      const data = event.data as InboundEmail;
      const at = isoTime(data.receivedAt);
      return {
        type: "email.received",
        created_at: at,
        data: {
          email_id: data.inboundId,
          created_at: at,
          from: data.from,
          to: data.to,
          cc: data.cc,
          bcc: data.bcc,
          received_for: data.receivedFor,
          message_id: data.messageId,
          subject: data.subject,
          attachments: data.attachments.map((a) => ({
            id: a.id,
            filename: a.filename,
            content_type: a.contentType,
            content_disposition: a.disposition,
            content_id: a.contentId,
          })),
        },
      };
    },
  },
};
