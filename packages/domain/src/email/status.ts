import type { EmailEvent } from "./events.js";

/**
 * The wire's `last_event` values (docs/wire-compatibility.md §6.1): an email's status is the kind of its latest event. The
 * one list the decider, the emails read model and the API's schemas all take it from.
 */
export const emailStatuses = [
  "queued",
  "scheduled",
  "canceled",
  "sent",
  "delivered",
  "delivery_delayed",
  "bounced",
  "failed",
  "suppressed",
  "opened",
  "clicked",
  "complained",
] as const;
export type EmailStatus = (typeof emailStatuses)[number];

/**
 * The status each event leaves an email in. A reschedule leaves it `scheduled`, as it was. Machine
 * engagement counts too: an open by a mail scanner is the email's latest event all the same, and the event
 * says who it was.
 */
export const emailStatusAfter: Readonly<Partial<Record<EmailEvent["type"], EmailStatus>>> = {
  EmailQueued: "queued",
  EmailScheduled: "scheduled",
  EmailCanceled: "canceled",
  EmailSent: "sent",
  EmailDelivered: "delivered",
  EmailDeliveryDelayed: "delivery_delayed",
  EmailBounced: "bounced",
  EmailFailed: "failed",
  EmailSuppressed: "suppressed",
  EmailOpened: "opened",
  EmailClicked: "clicked",
  EmailComplained: "complained",
};
