import { describe, expect, it } from "vitest";
import { parseDeliveryStatusReport } from "./deliveryStatusReport.js";

/** A relay's bounce for two recipients, one failed and one delayed, shaped as Postfix writes them. */
const dsn = `From: MAILER-DAEMON@relay.test (Mail Delivery System)
To: bounce+9d8c7b6a-5f4e-4d3c-8b2a-1f0e9d8c7b6a@send.acme.test
Subject: Undelivered Mail Returned to Sender
MIME-Version: 1.0
Content-Type: multipart/report; report-type=delivery-status;
\tboundary="B1"

--B1
Content-Description: Notification
Content-Type: text/plain; charset=us-ascii

I'm sorry to have to inform you that your message could not be delivered.

--B1
Content-Description: Delivery report
Content-Type: message/delivery-status

Reporting-MTA: dns; relay.test
Arrival-Date: Wed, 25 Nov 2026 10:00:00 +0000

Final-Recipient: rfc822; gone@example.test
Original-Recipient: rfc822;Gone@example.test
Action: failed
Status: 5.1.1
Remote-MTA: dns; mx.example.test
Diagnostic-Code: smtp; 550 5.1.1 <gone@example.test>: Recipient address
    rejected: User unknown

Final-Recipient: rfc822; slow@example.test
Action: delayed
Status: 4.4.1

--B1
Content-Description: Undelivered Message Headers
Content-Type: text/rfc822-headers

Message-ID: <9d8c7b6a-5f4e-4d3c-8b2a-1f0e9d8c7b6a@tidings.test>
Subject: Hello

--B1--
`.replace(/\n/g, "\r\n");

describe("parseDeliveryStatusReport", () => {
  it("reads each recipient's action, status and diagnostic, and the original Message-ID", () =>
    expect(parseDeliveryStatusReport(Buffer.from(dsn))).toEqual({
      originalMessageId: "<9d8c7b6a-5f4e-4d3c-8b2a-1f0e9d8c7b6a@tidings.test>",
      recipients: [
        {
          recipient: "Gone@example.test",
          action: "failed",
          status: "5.1.1",
          diagnostic: "550 5.1.1 <gone@example.test>: Recipient address rejected: User unknown",
        },
        { recipient: "slow@example.test", action: "delayed", status: "4.4.1", diagnostic: null },
      ],
    }));

  it("prefers the address as sent to a forwarded one, reads an action with a comment, and skips a block naming nobody", () => {
    const forwarded = dsn
      .replace("Original-Recipient: rfc822;Gone@example.test", "Original-Recipient: rfc822; alias@acme.test")
      .replace("Action: failed", "Action: failed (permanent)")
      .replace("Final-Recipient: rfc822; slow@example.test", "Final-Recipient: rfc822;");
    expect(parseDeliveryStatusReport(Buffer.from(forwarded))?.recipients).toEqual([
      { recipient: "alias@acme.test", action: "failed", status: "5.1.1", diagnostic: expect.stringContaining("User unknown") },
    ]);
  });

  it("is not fooled by a feedback report or a plain message", () => {
    expect(parseDeliveryStatusReport(Buffer.from(dsn.replace("report-type=delivery-status", "report-type=feedback-report")))).toBeNull();
    expect(parseDeliveryStatusReport(Buffer.from("Subject: x\r\n\r\nAction: failed\r\n"))).toBeNull();
  });
});
