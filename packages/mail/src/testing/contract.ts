import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { SmtpSink } from "@tidings/testkit";
import type { MailTransport, OutgoingMail } from "../port.js";

export interface MailTransportFixture {
  transport: MailTransport;
  /** Two addresses the fixture's receiver accepts. */
  recipients: [string, string];
  /** The bytes that last arrived for this email id, or undefined. */
  arrived(emailId: string): Promise<Buffer | undefined>;
  dispose(): Promise<void>;
}

/** `arrived` for a fixture whose receiver is an SMTP sink: the contract's emails carry their id in their Message-ID. */
export const arrivedAt =
  (sink: SmtpSink) =>
  async (emailId: string): Promise<Buffer | undefined> =>
    sink.withMessageId(`<${emailId}@acme.test>`).at(-1)?.raw;

let emails = 0;
function anEmail(recipients: string[]): OutgoingMail {
  const emailId = `contract-${process.pid}-${++emails}`;
  return {
    emailId,
    envelope: { from: "sender@acme.test", to: recipients },
    raw: Buffer.from(`From: sender@acme.test\r\nSubject: ${emailId}\r\nMessage-ID: <${emailId}@acme.test>\r\n\r\nbody of ${emailId}\r\n`),
    tls: "opportunistic",
  };
}

/** What every mail transport adapter keeps. Each adapter's test file calls this once. */
export function mailTransportContract(adapter: string, createFixture: () => Promise<MailTransportFixture>): void {
  describe(`mail transport contract: ${adapter}`, () => {
    let fixture: MailTransportFixture;
    beforeAll(async () => {
      fixture = await createFixture();
    });
    afterAll(async () => {
      await fixture?.dispose();
    });

    it("hands the message over byte for byte and reports each recipient delivered, in envelope order", async () => {
      const mail = anEmail(fixture.recipients);
      const outcome = await fixture.transport.send(mail);
      expect(outcome.kind).toBe("delivered");
      expect(outcome.perRecipient?.map((r) => [r.recipient, r.kind])).toEqual(fixture.recipients.map((r) => [r, "delivered"]));
      expect((await fixture.arrived(mail.emailId))?.equals(mail.raw)).toBe(true);
    });

    it("delivers a redelivery again, with the same bytes", async () => {
      const mail = anEmail(fixture.recipients.slice(0, 1));
      await fixture.transport.send(mail);
      expect(await fixture.transport.send(mail)).toMatchObject({ kind: "delivered" });
      expect((await fixture.arrived(mail.emailId))?.equals(mail.raw)).toBe(true);
    });

    it("closes only once the sends in flight have their outcome", async () => {
      const { transport, dispose } = await createFixture();
      const mails = Array.from({ length: 5 }, () => anEmail(fixture.recipients.slice(0, 1)));
      const sending = mails.map((mail) => transport.send(mail));
      await transport.close();
      const outcomes = await Promise.all(sending);
      expect(outcomes.map((o) => o.kind)).toEqual(mails.map(() => "delivered"));
      await dispose();
    });
  });
}
