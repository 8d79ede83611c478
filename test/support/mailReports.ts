/** An ARF report (RFC 5965) about `original`, as a mailbox provider's feedback loop sends it. */
export function feedbackReport(original: Buffer, recipient: string | null): string {
  const headersOnly = original.toString("latin1").split(/\r?\n\r?\n/)[0]!;
  return [
    "From: Feedback Loop <fbl@provider.test>",
    "To: fbl@mx.tidings.test",
    "Subject: Complaint",
    "MIME-Version: 1.0",
    'Content-Type: multipart/report; report-type=feedback-report; boundary="arf"',
    "",
    "--arf",
    "Content-Type: text/plain",
    "",
    "A recipient reported this message as spam.",
    "--arf",
    "Content-Type: message/feedback-report",
    "",
    "Feedback-Type: abuse",
    "User-Agent: ProviderFBL/1.0",
    "Version: 1",
    ...(recipient ? [`Original-Rcpt-To: ${recipient}`] : []),
    "",
    "--arf",
    "Content-Type: text/rfc822-headers",
    "",
    headersOnly,
    "",
    "--arf--",
    "",
  ].join("\r\n");
}

/** A relay's delivery-status report (RFC 3464): `recipient` failed with `status` after the relay took the message. */
export function deliveryStatusReport(original: Buffer, recipient: string, status: string, diagnostic: string): string {
  return [
    "From: MAILER-DAEMON@relay.test",
    "Subject: Undelivered Mail Returned to Sender",
    "MIME-Version: 1.0",
    'Content-Type: multipart/report; report-type=delivery-status; boundary="dsn"',
    "",
    "--dsn",
    "Content-Type: text/plain",
    "",
    "Your message could not be delivered.",
    "--dsn",
    "Content-Type: message/delivery-status",
    "",
    "Reporting-MTA: dns; relay.test",
    "",
    `Final-Recipient: rfc822; ${recipient}`,
    "Action: failed",
    `Status: ${status}`,
    `Diagnostic-Code: smtp; ${diagnostic}`,
    "",
    "--dsn",
    "Content-Type: text/rfc822-headers",
    "",
    original.toString("latin1").split(/\r?\n\r?\n/)[0]!,
    "",
    "--dsn--",
    "",
  ].join("\r\n");
}
