import { describe, expect, it } from "vitest";
import { parseFeedbackReport } from "./feedbackReport.js";

/** RFC 5965's own example, CRLF line ends as on the wire. */
const rfcExample = `From: <abusedesk@example.com>
Date: Thu, 8 Mar 2005 17:40:36 EDT
Subject: FW: Earn money
To: <abuse@example.net>
MIME-Version: 1.0
Content-Type: multipart/report; report-type=feedback-report;
     boundary="part1_13d.2e68ed54_boundary"

--part1_13d.2e68ed54_boundary
Content-Type: text/plain; charset="US-ASCII"
Content-Transfer-Encoding: 7bit

This is an email abuse report for an email message received from IP
192.0.2.1 on Thu, 8 Mar 2005 14:00:00 EDT.

--part1_13d.2e68ed54_boundary
Content-Type: message/feedback-report

Feedback-Type: abuse
User-Agent: SomeGenerator/1.0
Version: 1
Original-Mail-From: <somespammer@example.net>
Original-Rcpt-To: <user@example.com>
Arrival-Date: Thu, 8 Mar 2005 14:00:00 EDT
Reporting-MTA: dns; mail.example.com
Source-IP: 192.0.2.1

--part1_13d.2e68ed54_boundary
Content-Type: message/rfc822
Content-Disposition: inline

From: <somespammer@example.net>
To: <Undisclosed Recipients>
Subject: Earn money
MIME-Version: 1.0
Content-type: text/plain
Message-ID: <8787KJKJ3K4J3K4J3K4J3.mail@example.net>
Date: Thu, 02 Sep 2004 12:31:03 -0500

Spam Spam Spam
--part1_13d.2e68ed54_boundary--
`.replace(/\n/g, "\r\n");

/** A provider's redacted report: no recipient fields, the original's headers only, base64-encoded. */
const redactedHeaders = Buffer.from(
  "To: redacted@yahoo.invalid\r\nMessage-ID:\r\n <0b6a5c4d-3e2f-4a1b-8c9d-0e1f2a3b4c5d@tidings.test>\r\nSubject: Hi\r\n\r\n",
).toString("base64");
const redacted = `Content-Type: multipart/report; boundary=b1; report-type="feedback-report"

--b1
Content-Type: text/plain

A complaint.
--b1
Content-Type: message/feedback-report

Feedback-Type: Abuse
Version: 1
Reporting-MTA: dns; feedback.yahoo.invalid
--b1
Content-Type: text/rfc822-headers
Content-Transfer-Encoding: base64

${redactedHeaders}
--b1--
`;

/** A report naming one complainant about a message to two, its parts delimited by a boundary that prefixes another's. */
const twoRecipients = `Content-Type: multipart/report; report-type=feedback-report; boundary="b;1" (a comment)

--b;1
Content-Type: message/feedback-report

Feedback-Type: abuse
Original-Rcpt-To: rfc822;bob@example.test
--b;1x
not a delimiter
--b;1
Content-Type: text/rfc822-headers

To: Ann <ann@example.test>, bob@example.test
Message-ID: <m2@tidings.test>
`;

describe("parseFeedbackReport", () => {
  it("reads RFC 5965's example: the type, the reporter, the original Message-ID and the recipient", () =>
    expect(parseFeedbackReport(Buffer.from(rfcExample))).toEqual({
      feedbackType: "abuse",
      reportedBy: "SomeGenerator/1.0",
      originalMessageId: "<8787KJKJ3K4J3K4J3K4J3.mail@example.net>",
      recipients: ["user@example.com"],
    }));

  it("reads a redacted report with the original's headers only, base64-encoded and folded", () =>
    expect(parseFeedbackReport(Buffer.from(redacted))).toEqual({
      feedbackType: "abuse",
      reportedBy: "feedback.yahoo.invalid",
      originalMessageId: "<0b6a5c4d-3e2f-4a1b-8c9d-0e1f2a3b4c5d@tidings.test>",
      recipients: ["redacted@yahoo.invalid"],
    }));

  it("is not fooled by a plain message or by a delivery-status report", () => {
    expect(parseFeedbackReport(Buffer.from("Subject: hello\r\nContent-Type: text/plain\r\n\r\nFeedback-Type: abuse\r\n"))).toBeNull();
    expect(parseFeedbackReport(Buffer.from(rfcExample.replace("report-type=feedback-report", "report-type=delivery-status")))).toBeNull();
  });

  it("blames the recipient the report names, not everyone the original went to; the original's To only when it names one", () => {
    expect(parseFeedbackReport(Buffer.from(twoRecipients))).toMatchObject({
      originalMessageId: "<m2@tidings.test>",
      recipients: ["bob@example.test"],
    });
    expect(parseFeedbackReport(Buffer.from(twoRecipients.replace("Original-Rcpt-To: rfc822;bob@example.test\n", "")))?.recipients).toEqual(
      [],
    );
  });

  it("reads a not-spam report as such, and a report cut short before its closing delimiter", () => {
    expect(parseFeedbackReport(Buffer.from(rfcExample.replace("Feedback-Type: abuse", "Feedback-Type: not-spam")))?.feedbackType).toBe(
      "not-spam",
    );
    const cut = rfcExample.slice(0, rfcExample.indexOf("Spam Spam Spam"));
    expect(parseFeedbackReport(Buffer.from(cut))?.originalMessageId).toBe("<8787KJKJ3K4J3K4J3K4J3.mail@example.net>");
  });

  it("reads a megabyte of a token without an @ in linear time, finding no address in it", () => {
    const hostile = rfcExample.replace("Original-Rcpt-To: <user@example.com>", `Original-Rcpt-To: ${"a".repeat(1_000_000)}`);
    expect(parseFeedbackReport(Buffer.from(hostile))?.recipients).toEqual([]);
  });

  it("answers null for a report without its feedback part", () =>
    expect(parseFeedbackReport(Buffer.from(rfcExample.replace("message/feedback-report", "text/plain")))).toBeNull());
});
