import { createLogger, systemClock, Slots } from "@tidings/core";
import type { EventStore } from "@tidings/eventstore";
import type { MailTransport } from "@tidings/mail";
import type { Database } from "@tidings/postgres";
import type { DeliveryDeps } from "../delivery/delivery.js";
import { createTimers } from "../timers/index.js";

export interface BareDelivery {
  store: EventStore;
  transport: MailTransport;
  /** Send slots: how many emails may be between the server's 250 and their record. */
  slots: number;
  /** The subject and the body of every message composed. */
  subject: string;
}

/**
 * The delivery saga's dependencies around a store and a transport, for tests that call `deliverEmail`
 * themselves: a bare message with the email's Message-ID instead of the real composer, no sending-domain
 * policy, nobody suppressed, and one retry after 300 ms.
 */
export function bareDeliveryDeps(database: Database, { store, transport, slots, subject }: BareDelivery): DeliveryDeps {
  return {
    store,
    clock: systemClock,
    transport,
    sending: new Slots(slots),
    compose: async (c) =>
      Buffer.from(`From: hello@acme.test\r\nMessage-ID: <${c.emailId}@tidings.test>\r\nSubject: ${subject}\r\n\r\n${subject}\r\n`),
    envelopePolicy: async () => ({ tls: "opportunistic", sender: null }),
    timers: createTimers(database),
    suppressed: async () => [],
    logger: createLogger("silent"),
    retryBackoffMs: [300],
  };
}
