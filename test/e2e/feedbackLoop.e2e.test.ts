import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { inboundMailSuite, smtpError } from "../support/inboundMail.js";
import { feedbackReport } from "../support/mailReports.js";

/** Feedback-loop complaints (#8), as a mailbox provider sends them through real SMTP to the inbound listener. */
const mail = inboundMailSuite();

describe("feedback-loop complaints", () => {
  it("records a report about a sent email: email.complained, last_event complained, the recipient suppressed from then on", async () => {
    const { resend, inbound, domain, webhookFor, eventsOf, deliveredTo, suppressions } = mail;
    const to = `dana-${randomUUID().slice(0, 6)}@example.test`;
    const { data: sent } = await resend.emails.send({ from: "Acme <hello@acme.test>", to, subject: "Our news", html: "<p>News</p>" });
    const [delivered] = await deliveredTo(to);
    expect(delivered!.messageId).toContain(sent!.id);

    const arf = feedbackReport(delivered!.raw, to);
    // At a team's receiving address a report is mail like any other: its sender cannot touch the team's emails.
    await inbound.sendMail({ envelope: { from: "", to: [`abuse@${domain}`] }, raw: arf });
    expect(await eventsOf(`email-${sent!.id}`, "EmailComplained")).toBe(0);
    await expect
      .poll(async () =>
        (await resend.emails.receiving.list()).data?.data.some(
          (e) => e.subject === "Complaint" && e.received_for.includes(`abuse@${domain}`),
        ),
      )
      .toBe(true);

    const report = { envelope: { from: "", to: ["fbl@mx.tidings.test"] }, raw: arf };
    await inbound.sendMail(report);
    await inbound.sendMail(report);
    expect(await eventsOf(`email-${sent!.id}`, "EmailComplained")).toBe(1);
    const complaints = await webhookFor("email.complained", sent!.id);
    expect(complaints[0]).toEqual({
      type: "email.complained",
      created_at: expect.any(String),
      data: expect.objectContaining({ email_id: sent!.id, to: [to], subject: "Our news", message_id: delivered!.messageId }),
    });
    expect((await resend.emails.get(sent!.id)).data?.last_event).toBe("complained");
    expect(await suppressions("complaint")).toContainEqual(
      expect.objectContaining({ email: to, origin: "complaint", source_id: sent!.id }),
    );

    const { data: next } = await resend.emails.send({ from: "Acme <hello@acme.test>", to, subject: "More news", html: "<p>More</p>" });
    expect((await resend.emails.get(next!.id)).data?.last_event).toBe("suppressed");
    const [suppressed] = await webhookFor("email.suppressed", next!.id);
    expect(suppressed!.data.suppressed).toEqual({
      message: `On the team's suppression list: ${to}.`,
      type: "OnAccountSuppressionList",
      reason: "previous_complaint",
    });
  });

  it("takes only reports at the feedback address, and accepts one naming no email of ours without recording it", async () => {
    const { inbound } = mail;
    const plain = await smtpError(
      inbound.sendMail({ from: "x@elsewhere.test", to: "fbl@mx.tidings.test", subject: "Hello", text: "Not a report" }),
    );
    expect(plain).toMatchObject({
      responseCode: 550,
      response: expect.stringContaining("feedback-loop (ARF) and delivery-status reports only"),
    });
    const foreign = Buffer.from(`Message-ID: <${randomUUID()}@elsewhere.test>\r\nTo: x@example.test\r\n\r\nbody`);
    const accepted = await inbound.sendMail({ envelope: { from: "", to: ["fbl@mx.tidings.test"] }, raw: feedbackReport(foreign, null) });
    expect(accepted.response).toMatch(/^250 /);
  });
});
